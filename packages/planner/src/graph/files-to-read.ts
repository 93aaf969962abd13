/**
 * Adapter: which files of a checkout the graph build reads from disk, given every file's blob id
 * — so that `waves backtest` checks out only those in its worktree of a past commit (a sparse
 * checkout), not the whole tree. The build reads:
 * - configuration: manifests, tsconfigs and whatever JSON an `extends` names, the pnpm workspace
 *   file (as globs: `*.json`, `pnpm-workspace.yaml`);
 * - the source files whose imports the cache does not hold under their blob id (all of them
 *   without a cache; on a warm cache, few or none), or whose symbols (with their words) the symbols
 *   cache does not (scope inference reads them while the checkout is there: see `waves backtest`).
 * Every other file is known from the listing alone (its path and blob id), which is all the
 * resolver and the planner ask of it; and no file larger than the build reads (`MAX_SOURCE_BYTES`:
 * a generated JSON of megabytes) is checked out, whatever pattern it matches.
 */
import type { RepoPath } from '../types.js';
import { GRAPH_CACHE_TOOL, readGraphCache } from './graph-cache.js';
import { isSourceFile, SOURCE_EXTENSIONS } from './graph-files.js';
import { readSymbolsCache } from './symbols-cache.js';
import { MAX_SOURCE_BYTES } from './read-repo-file.js';

export interface CheckoutPatterns {
  /** Globs matching at any depth (gitignore syntax, as sparse checkout reads them). */
  globs: string[];
  /** Exact paths. */
  paths: RepoPath[];
  /** Exact paths left out whatever pattern matches them: files larger than the build reads, or that the clone lacks and the build does not need. */
  exclude: RepoPath[];
}

const CONFIG_GLOBS = ['*.json', 'pnpm-workspace.yaml'];
/** Configuration the build always reads where it is. */
const NEEDED_CONFIG = /(?:^|\/)(?:package\.json|[jt]sconfig[^/]*\.json|pnpm-workspace\.yaml)$/;

/** Past this many files to read, globs of the source extensions are cheaper for git to match than the paths. */
const MAX_PATHS = 2000;

/**
 * The patterns covering what `buildRepoGraph` reads in a checkout of these files. `cacheAt` is the
 * cache the build will use (its slot, else the repository's main cache as the seed), or false.
 */
export async function filesToRead(
  files: readonly { path: RepoPath; blob: string; link?: boolean; size?: number | null }[],
  cacheAt: { root: string; slot: string } | false,
): Promise<CheckoutPatterns> {
  // Never read, so never checked out (and a clone may lack such a blob: a snapshot without its
  // large files, a partial clone). A blob the clone lacks (size null) is left out too unless the
  // build needs it — a source, a manifest, a tsconfig: then the checkout fails, and says which.
  const unread = (f: { path: RepoPath; size?: number | null }) => (f.size === null ? !isSourceFile(f.path) && !NEEDED_CONFIG.test(f.path) : f.size !== undefined && f.size > MAX_SOURCE_BYTES);
  const exclude = files.filter((f) => !f.link && unread(f)).map((f) => f.path);
  const allSources = { globs: [...CONFIG_GLOBS, ...SOURCE_EXTENSIONS.map((ext) => `*${ext}`)], paths: [], exclude };
  // A link is read through to its target, which must be there too: rare enough to check out every source.
  if (cacheAt === false || files.some((f) => f.link && isSourceFile(f.path))) return allSources;
  const cache = (await readGraphCache(cacheAt.root, GRAPH_CACHE_TOOL, cacheAt.slot)) ?? (await readGraphCache(cacheAt.root, GRAPH_CACHE_TOOL));
  if (!cache) return allSources;
  // And those whose symbols (scope inference) the symbols cache lacks, or whose words it has not
  // counted (a build that needed no inference left them out): the backtest reads them in the checkout.
  const symbols = readSymbolsCache(cacheAt.root, cacheAt.slot) ?? readSymbolsCache(cacheAt.root) ?? {};
  const paths = files.filter((f) => isSourceFile(f.path) && !unread(f) && (cache.entries[f.path]?.id !== f.blob || !Object.hasOwn(symbols, f.blob) || symbols[f.blob]!.length < 3)).map((f) => f.path);
  return paths.length > MAX_PATHS ? allSources : { globs: [...CONFIG_GLOBS], paths, exclude };
}
