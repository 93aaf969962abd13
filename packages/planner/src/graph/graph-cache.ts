/**
 * Adapter: the import-graph cache under `<root>/.waves/cache/`. Each source file's scanned
 * imports are keyed by its content id (the git blob id, or the same SHA-1 computed over the
 * content outside git), and its resolved targets by the configuration and the file list they
 * were resolved against. A cache of another version, or one that does not parse or validate, is
 * ignored and rebuilt — never trusted.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ImportKind, RepoPath } from '../types.js';
import { sweepCacheTemps } from './cache-temps.js';
import { readRegularFile } from './read-regular-file.js';

/** Bump when scanning or resolution changes what a cached entry means. */
export const GRAPH_CACHE_VERSION = 14; // 4: files read only inside the repository, regular and at most 2 MB; 5: JSON imports resolve to their files; 6: tsconfig extends chains read only inside the repository or from packages; 7: declared names and message literals of each file (scope inference); 8: up to 256 literals (16,000 characters) a file; 9: whole template literals with their holes; 10: names and literals moved to the symbols cache (symbols-cache.ts), read only for inference; 11: every config an extends chain reads is in the key, whatever its name (config/base.json); 12: a `/` after the condition of if/while/for/with starts a regular expression, and UTF-16 sources are decoded; 13: a `/` after a block's `}`, `export default`, `extends` or `for await (…)` starts a regular expression, and `//` comments end at U+2028/U+2029; a scan that passed over import-shaped text asks TypeScript's parser; 14: a workspace subpath its exports map to a file that is no source is an asset (was unresolved)

/** Who wrote a cache: a cache of another tool or version is never read. */
export const GRAPH_CACHE_TOOL = `waves-graph-${GRAPH_CACHE_VERSION}`;

/** A resolved target: a repository path, `EXTERNAL` or `UNRESOLVED`. */
export const EXTERNAL = '';
export const UNRESOLVED = '!';

export interface CachedFile {
  /** Content id: the git blob id of the content. */
  id: string;
  imports: [string, ImportKind][];
  /** Aligned with `imports`. */
  targets: string[];
}

export interface GraphCache {
  version: number;
  /** Changes when any tsconfig, package manifest or workspace file changes. */
  configKey: string;
  /** Every file of the repository when the targets were resolved (directory existence matters). */
  files: RepoPath[];
  /** Configuration files read outside the file list (gitignored `extends` targets), with their ids. */
  extraConfigs: Record<RepoPath, string>;
  /** Tsconfigs skipped because their extends chain was refused (tsconfig-chain.ts), with why. */
  skippedConfigs: Record<RepoPath, string>;
  entries: Record<RepoPath, CachedFile>;
}

const KINDS = new Set<string>(['static', 'type', 'dynamic', 'require', 'reexport']);

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/**
 * Checks a parsed cache by hand rather than with a schema: it holds tens of thousands of entries
 * and is read on every run, where a schema would cost more than the rest of a warm build.
 */
function isCache(data: unknown, tool: string): data is GraphCache {
  if (!data || typeof data !== 'object') return false;
  const c = data as Record<string, unknown>;
  if (c.version !== GRAPH_CACHE_VERSION || c.tool !== tool || typeof c.configKey !== 'string' || !isStringArray(c.files)) return false;
  if (!c.extraConfigs || typeof c.extraConfigs !== 'object' || !Object.values(c.extraConfigs).every((v) => typeof v === 'string')) return false;
  if (!c.skippedConfigs || typeof c.skippedConfigs !== 'object' || !Object.values(c.skippedConfigs).every((v) => typeof v === 'string')) return false;
  if (!c.entries || typeof c.entries !== 'object') return false;
  for (const entry of Object.values(c.entries as Record<string, unknown>)) {
    if (!entry || typeof entry !== 'object') return false;
    const e = entry as Record<string, unknown>;
    if (typeof e.id !== 'string' || !Array.isArray(e.imports) || !isStringArray(e.targets) || e.targets.length !== e.imports.length) return false;
    for (const item of e.imports as unknown[]) {
      if (!Array.isArray(item) || item.length !== 2 || typeof item[0] !== 'string' || typeof item[1] !== 'string' || !KINDS.has(item[1])) return false;
    }
  }
  return true;
}

/** The git blob id of some content: what `git hash-object` prints (SHA-256 for a repository of that object format). */
export function contentId(content: Uint8Array | string, algorithm: 'sha1' | 'sha256' = 'sha1'): string {
  const buffer = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return createHash(algorithm).update(`blob ${buffer.length}\0`).update(buffer).digest('hex');
}

/**
 * Whether some content is the blob of that id (its hash, in the id's object format), or would be
 * once its line ends are LF (a work tree checked out with CRLF, as `core.autocrlf` does).
 */
export function isContentOf(content: Uint8Array, id: string): boolean {
  const algorithm = id.length === 64 ? 'sha256' : 'sha1';
  if (contentId(content, algorithm) === id) return true;
  const buffer = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  return buffer.includes('\r\n') && contentId(Buffer.from(buffer.toString('latin1').replaceAll('\r\n', '\n'), 'latin1'), algorithm) === id;
}

/**
 * The cache file of `root`. A slot is a second cache beside the main one, for checkouts other
 * than the work tree (`waves backtest` builds the graph of a past commit in a temporary worktree,
 * and keeps it in the `backtest` slot of the repository it came from).
 */
export function cacheFile(root: string, slot?: string): string {
  return path.join(root, '.waves', 'cache', `graph-v${GRAPH_CACHE_VERSION}${slot ? `-${slot}` : ''}.json`);
}

/**
 * The most a cache may hold when read back: a repository of a hundred thousand files makes tens of
 * megabytes. The cache lies in the repository, where an agent could put anything in its place.
 */
const MAX_CACHE_BYTES = 512 * 1024 * 1024;

/** Reads the cache of `root`; null when there is none, or it is corrupt, old or made by another tool version (or not a regular file). */
export async function readGraphCache(root: string, tool: string, slot?: string): Promise<GraphCache | null> {
  const read = await readRegularFile(cacheFile(root, slot), { maxBytes: MAX_CACHE_BYTES });
  if (!read.ok) return null;
  try {
    const data: unknown = JSON.parse(read.text);
    return isCache(data, tool) ? data : null;
  } catch {
    return null;
  }
}

/** A directory waves made, or one that is not there yet; never a link a clone or an agent put in its place. */
async function ownDirectory(dir: string): Promise<boolean> {
  const info = await lstat(dir).catch(() => null);
  return info === null || info.isDirectory();
}

/**
 * Writes the cache atomically (a temporary file renamed over the old one); failures are not fatal.
 * Nothing is written through a link: `.waves` and `.waves/cache` must be directories (or absent),
 * and the temporary file is created afresh (`wx`).
 */
export async function writeGraphCache(root: string, tool: string, cache: GraphCache, slot?: string): Promise<boolean> {
  const file = cacheFile(root, slot);
  const dir = path.dirname(file);
  try {
    if (!(await ownDirectory(path.dirname(dir))) || !(await ownDirectory(dir))) return false;
    await mkdir(dir, { recursive: true });
    // The cache never belongs in the repository.
    await writeFile(path.join(root, '.waves', '.gitignore'), '*\n', { flag: 'wx' }).catch(() => undefined);
    sweepCacheTemps(dir);
    const text = JSON.stringify({ ...cache, tool });
    const temp = `${file}.${process.pid}.tmp`;
    await rm(temp, { force: true });
    try {
      await writeFile(temp, text, { flag: 'wx' });
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true }); // a directory in the cache's place, a full disk: no leftover
      throw error;
    }
    return true;
  } catch {
    return false;
  }
}
