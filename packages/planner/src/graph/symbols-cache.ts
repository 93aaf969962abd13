/**
 * Adapter: the symbols cache under `<root>/.waves/cache/`, beside the graph cache — what each
 * source file declares and the messages it holds (scan-symbols.ts), for scope inference only.
 * Kept apart from the graph cache so that a plan that needs no inference never reads it: every
 * warm run reads the graph cache, and the symbols would double its size.
 *
 * Keyed by content id alone (the git blob id, or the same hash of the content outside git): what a
 * file declares depends on nothing else, so an entry is never stale, only unused (dropped when the
 * cache is rewritten), and a file's path is not repeated. Compact: one array `[names, literals,
 * words]` a content, the names joined by a space (identifiers hold none), the literals by a
 * newline (a kept literal is one line: scan-symbols.ts) and the words packed with their counts
 * (`packWords`; left out until a plan needs them), so that parsing makes three strings a file. A cache of another version, or one that does not parse or
 * validate, is ignored and rebuilt — never trusted.
 */
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { sweepCacheTemps } from './cache-temps.js';
import { MAX_LITERAL_CHARS, MAX_LITERALS, MAX_NAME_LENGTH, MAX_NAMES } from './scan-symbols.js';
import { MAX_CONTENT_PIECES, MAX_CONTENT_WORDS, MAX_WORD_LENGTH, packWords } from './text-tokens.js';
import { readRegularFileSync } from './read-regular-file.js';

/** Bump when scanning changes what a cached entry means. */
export const SYMBOLS_CACHE_VERSION = 3; // 3: the lexer's regex-or-division guess after `}` and more keywords, U+2028/U+2029 as line terminators

/** Who wrote a cache: a cache of another tool or version is never read. */
export const SYMBOLS_CACHE_TOOL = `waves-symbols-${SYMBOLS_CACHE_VERSION}`;

/**
 * One content: its declared names joined by ' ', its literals joined by '\n', and its words
 * packed (`packWords`) — or no third element when they were not counted yet (a build that needs
 * no inference, `waves graph`, leaves them to the first plan that does).
 */
export type SymbolsEntry = [names: string, literals: string] | [names: string, literals: string, words: string];

/** Entries by content id. */
export type SymbolsEntries = Record<string, SymbolsEntry>;

/** The cache file of `root` (in the same slot as the graph cache it goes with: see graph-cache.ts). */
export function symbolsCacheFile(root: string, slot?: string): string {
  return path.join(root, '.waves', 'cache', `symbols-v${SYMBOLS_CACHE_VERSION}${slot ? `-${slot}` : ''}.json`);
}

/** The most a cache may hold when read back (it lies in the repository, where an agent could put anything). */
const MAX_CACHE_BYTES = 256 * 1024 * 1024;

export function packEntry(names: readonly string[], literals: readonly string[], words: readonly (readonly [string, number])[] | null): SymbolsEntry {
  return words === null ? [names.join(' '), literals.join('\n')] : [names.join(' '), literals.join('\n'), packWords(words)];
}

export function unpackEntry(entry: SymbolsEntry): { names: string[]; literals: string[]; words?: string } {
  const out = { names: entry[0] === '' ? [] : entry[0].split(' '), literals: entry[1] === '' ? [] : entry[1].split('\n') };
  return entry.length === 3 ? { ...out, words: entry[2] } : out;
}

/**
 * The most each part of an entry can hold, as the scan bounds it: its names, its literals (and
 * their newlines), its words with their counts. A cache lies in the checkout, where an agent could write anything: an entry
 * past them was not written by waves, and the whole cache is ignored and rebuilt — never a plan
 * that reads millions of words.
 */
const MAX_PART = [
  MAX_NAMES * (MAX_NAME_LENGTH + 1),
  MAX_LITERAL_CHARS + MAX_LITERALS,
  // A word, `*`, its count (at most the pieces counted), a space.
  MAX_CONTENT_WORDS * (MAX_WORD_LENGTH + 1 + String(MAX_CONTENT_PIECES).length + 1),
] as const;

function isEntries(value: unknown): value is SymbolsEntries {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const entry of Object.values(value as Record<string, unknown>)) {
    if (!Array.isArray(entry) || (entry.length !== 2 && entry.length !== 3)) return false;
    for (let i = 0; i < entry.length; i++) if (typeof entry[i] !== 'string' || (entry[i] as string).length > MAX_PART[i]!) return false;
  }
  return true;
}

/** Reads the symbols cache of `root`; null when there is none, or it is corrupt, old or of another tool (or not a regular file). */
export function readSymbolsCache(root: string, slot?: string): SymbolsEntries | null {
  const read = readRegularFileSync(symbolsCacheFile(root, slot), { maxBytes: MAX_CACHE_BYTES });
  if (!read.ok) return null;
  try {
    const data = JSON.parse(read.text) as Record<string, unknown> | null;
    if (!data || typeof data !== 'object' || data.version !== SYMBOLS_CACHE_VERSION || data.tool !== SYMBOLS_CACHE_TOOL) return null;
    return isEntries(data.entries) ? data.entries : null;
  } catch {
    return null;
  }
}

/** A directory waves made, or one that is not there yet; never a link a clone or an agent put in its place. */
function ownDirectory(dir: string): boolean {
  try {
    return lstatSync(dir).isDirectory();
  } catch {
    return true;
  }
}

/**
 * Writes the cache atomically (a temporary file renamed over the old one); failures are not fatal.
 * Synchronous: scope inference asks for the symbols in the middle of a (synchronous) plan. Nothing
 * is written through a link, as with the graph cache.
 */
export function writeSymbolsCache(root: string, entries: SymbolsEntries, slot?: string): boolean {
  const file = symbolsCacheFile(root, slot);
  const dir = path.dirname(file);
  try {
    if (!ownDirectory(path.dirname(dir)) || !ownDirectory(dir)) return false;
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(path.join(root, '.waves', '.gitignore'), '*\n', { flag: 'wx' });
    } catch {
      // already there
    }
    sweepCacheTemps(dir);
    // The whole text first: the temporary file exists only while it is written.
    const text = JSON.stringify({ version: SYMBOLS_CACHE_VERSION, tool: SYMBOLS_CACHE_TOOL, entries });
    const temp = `${file}.${process.pid}.tmp`;
    rmSync(temp, { force: true });
    const fd = openSync(temp, 'wx');
    try {
      try {
        writeSync(fd, text);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, file);
    } catch (error) {
      rmSync(temp, { force: true }); // a directory in the cache's place, a full disk: no leftover
      throw error;
    }
    // The caches of older versions are never read again (the version is in the name): each that is a file or a link goes.
    for (const name of readdirSync(dir)) {
      const version = /^symbols-v(\d+)(?:-[^/]*)?\.json$/.exec(name);
      if (!version || Number(version[1]) >= SYMBOLS_CACHE_VERSION) continue;
      try {
        if (!lstatSync(path.join(dir, name)).isDirectory()) rmSync(path.join(dir, name), { force: true });
      } catch {
        // not fatal: a leftover is only disk
      }
    }
    return true;
  } catch {
    return false;
  }
}
