/**
 * tsconfig `paths` and `baseUrl` as TypeScript reads them: the candidate files of a bare
 * specifier — the exact key first, else the pattern with the longest prefix (the first written
 * among equals), its one `*` replaced by what it matched; else the specifier under `baseUrl`.
 *
 * A tsconfig is the repository's word, and one of 2 MB holds 70,000 patterns that as many distinct
 * imports are matched against (get-tsconfig's matcher walks every pattern for every specifier:
 * 726 s), or one `*` entry with 100,000 substitutions that every bare specifier (`react` too)
 * matches. So the patterns are indexed once by their literal prefix; only the first
 * `MAX_PATHS_ENTRIES` entries, `MAX_ENTRY_SUBSTITUTIONS` substitutions of each and
 * `MAX_PATHS_SUBSTITUTIONS` in all are honoured (`honouredPaths`, also what TypeScript's fallback
 * is handed), and said so (`notes`); the entry a specifier matches is kept, never its candidates,
 * which are built as asked, at most `MAX_BUILT_CANDIDATE_BYTES` of them.
 */
import path from 'node:path';

/** The `paths` entries of one tsconfig honoured; no real project comes near it. */
export const MAX_PATHS_ENTRIES = 4096;

/** The substitutions honoured per entry: TypeScript tries them in order, and real projects write one to three. */
export const MAX_ENTRY_SUBSTITUTIONS = 8;

/** The substitutions honoured across the entries of one tsconfig: two for each of the most entries honoured. */
export const MAX_PATHS_SUBSTITUTIONS = 8192;

/** The longest candidate built (Linux's PATH_MAX): a longer one names no file. */
export const MAX_CANDIDATE_LENGTH = 4096;

/**
 * The characters of candidates one matcher may build: real projects build a few hundred per
 * specifier, a hostile one eight of 4 KB for each of thousands of distinct specifiers. Past it,
 * candidates are not built.
 */
export const MAX_BUILT_CANDIDATE_BYTES = 16 * 1024 * 1024;

/** The specifiers whose matching entry is remembered before the memory is cleared. */
const MAX_CACHED_MATCHES = 65_536;

/** A `paths` map within waves' caps, and what was left out of it. */
export interface HonouredPaths {
  /** The honoured entries, in order, each with its honoured (string) substitutions. */
  paths: Record<string, string[]>;
  /** Why the map was read in part (none when it was read whole). */
  notes: string[];
}

const n = (count: number) => count.toLocaleString('en-US');

/**
 * The entries of a `paths` map (or of one `typesVersions` range: `field` names it) that waves and
 * TypeScript's fallback honour: the first `MAX_PATHS_ENTRIES`, the first `MAX_ENTRY_SUBSTITUTIONS`
 * substitutions of each, `MAX_PATHS_SUBSTITUTIONS` in all, none longer than `MAX_CANDIDATE_LENGTH`.
 * A value that is no array is left out, as is what is no string in one.
 */
export function honouredPaths(map: unknown, field = 'paths'): HonouredPaths {
  const paths: Record<string, string[]> = {};
  const record = map && typeof map === 'object' && !Array.isArray(map) ? (map as Record<string, unknown>) : {};
  let entries = 0;
  let ignored = 0;
  let crowded = 0;
  let long = 0;
  let overTotal = false;
  let total = 0;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    if (entries === MAX_PATHS_ENTRIES) {
      ignored++;
      continue;
    }
    entries++;
    const value = record[key];
    if (!Array.isArray(value)) continue;
    const honoured: string[] = [];
    let strings = 0;
    for (const s of value) {
      if (typeof s !== 'string') continue;
      if (++strings > MAX_ENTRY_SUBSTITUTIONS) {
        crowded++;
        break;
      }
      if (s.length > MAX_CANDIDATE_LENGTH) long++;
      else if (total === MAX_PATHS_SUBSTITUTIONS) overTotal = true;
      else {
        honoured.push(s);
        total++;
      }
    }
    // An entry left with nothing by the total cap is ignored whole; one written empty stays (it matches, and names nothing).
    if (honoured.length > 0 || strings === 0) paths[key] = honoured;
  }
  const notes: string[] = [];
  if (ignored > 0) notes.push(`read in part: its ${field} hold ${n(MAX_PATHS_ENTRIES + ignored)} entries, past the first ${n(MAX_PATHS_ENTRIES)} ignored`);
  if (crowded > 0) notes.push(`read in part: ${n(crowded)} ${field} entr${crowded === 1 ? 'y' : 'ies'} with more than ${MAX_ENTRY_SUBSTITUTIONS} substitutions, past the first ${MAX_ENTRY_SUBSTITUTIONS} ignored`);
  if (overTotal) notes.push(`read in part: its ${field} hold more than ${n(MAX_PATHS_SUBSTITUTIONS)} substitutions, past the first ${n(MAX_PATHS_SUBSTITUTIONS)} ignored`);
  if (long > 0) notes.push(`read in part: ${n(long)} ${field} substitution(s) longer than ${n(MAX_CANDIDATE_LENGTH)} characters ignored`);
  return { paths, notes };
}

export interface PathsMatcher {
  /** Absolute candidate paths of `specifier`, in order, built now; none for a relative one. Shared with the next caller that asks the same: never change it. */
  (specifier: string): readonly string[];
  /** Why the tsconfig's `paths` were read in part: its caps, and candidates left unbuilt so far. */
  notes(): readonly string[];
}

interface Entry {
  prefix: string;
  suffix: string;
  substitutions: readonly string[];
}

/** What answers a specifier: an entry's substitutions, with the match for their `*` (null: an exact key); or `baseUrl`. */
type Found = { substitutions: readonly string[]; match: string | null } | 'baseUrl';

const RELATIVE = /^\.{1,2}(?:\/.*)?$/;

/**
 * A matcher for `paths` resolved against `base` (the folder of `baseUrl`, else of the tsconfig
 * that wrote `paths`); with `baseUrl`, a specifier no entry matches lies under `base`.
 */
export function pathsMatcher(options: { base: string; baseUrl: boolean; paths: unknown }): PathsMatcher {
  const { base, baseUrl } = options;
  const honoured = honouredPaths(options.paths);
  const exact = new Map<string, readonly string[]>();
  const byPrefix = new Map<string, Entry[]>();
  for (const [key, substitutions] of Object.entries(honoured.paths)) {
    // TypeScript skips a key with more than one `*` (and reports it): so does waves.
    const star = key.indexOf('*');
    if (star >= 0 && key.indexOf('*', star + 1) >= 0) continue;
    if (star < 0) {
      if (!exact.has(key)) exact.set(key, substitutions);
      continue;
    }
    const entry = { prefix: key.slice(0, star), suffix: key.slice(star + 1), substitutions };
    const group = byPrefix.get(entry.prefix);
    if (group) group.push(entry);
    else byPrefix.set(entry.prefix, [entry]);
  }
  const prefixLengths = [...new Set([...byPrefix.keys()].map((p) => p.length))].sort((a, b) => b - a);
  const matches = new Map<string, Found | null>();
  let built = 0;
  let unbuilt = 0;
  // The resolver asks twice in a row about a specifier it finds no file for: the last answer is kept, and only it.
  let last: { specifier: string; candidates: readonly string[] } | null = null;

  const find = (specifier: string): Found | null => {
    const known = exact.get(specifier);
    if (known) return { substitutions: known, match: null };
    for (const length of prefixLengths) {
      if (length > specifier.length) continue;
      const group = byPrefix.get(specifier.slice(0, length));
      if (!group) continue;
      for (const { suffix, substitutions } of group) {
        if (specifier.length < length + suffix.length || !specifier.endsWith(suffix)) continue;
        return { substitutions, match: specifier.slice(length, specifier.length - suffix.length) };
      }
    }
    return baseUrl ? 'baseUrl' : null;
  };
  /** `written` under `base`, unless longer than a path can be or past the budget (measured before it is built). */
  const candidate = (written: string, length: number, out: string[]): void => {
    // NOTE: measured as written: a candidate whose `..` would shorten it past the cap is dropped too; no real one is that long.
    const full = (path.isAbsolute(written) ? 0 : base.length + 1) + length;
    if (full > MAX_CANDIDATE_LENGTH) return;
    if (built + full > MAX_BUILT_CANDIDATE_BYTES) {
      unbuilt++;
      return;
    }
    built += full;
    out.push(path.resolve(base, written));
  };
  const build = (specifier: string): string[] => {
    if (RELATIVE.test(specifier)) return [];
    let found = matches.get(specifier);
    if (found === undefined) {
      // Bounded: a specifier asked again after a clear is matched again, never wrongly.
      if (matches.size >= MAX_CACHED_MATCHES) matches.clear();
      matches.set(specifier, (found = find(specifier)));
    }
    const out: string[] = [];
    if (found === null) return out;
    if (found === 'baseUrl') {
      candidate(specifier, specifier.length, out);
      return out;
    }
    const { substitutions, match } = found;
    for (const s of substitutions) {
      // As TypeScript does: an empty match leaves the `*` in place; only the first `*` is replaced.
      if (match === null || match === '' || !s.includes('*')) candidate(s, s.length, out);
      else if ((path.isAbsolute(s) ? 0 : base.length + 1) + s.length + match.length - 1 <= MAX_CANDIDATE_LENGTH) candidate(s.replace('*', () => match), s.length + match.length - 1, out);
    }
    return out;
  };
  const matcher = (specifier: string): readonly string[] => {
    if (last?.specifier !== specifier) last = { specifier, candidates: build(specifier) };
    return last.candidates;
  };
  const notes = (): readonly string[] =>
    unbuilt === 0 ? honoured.notes : [...honoured.notes, `read in part: its paths candidates past the first ${MAX_BUILT_CANDIDATE_BYTES / 1024 / 1024} MB built were not built`];
  return Object.assign(matcher, { notes });
}
