/**
 * tsconfig `paths` and `baseUrl` as TypeScript reads them: the candidate files of a bare
 * specifier — the exact key first, else the pattern with the longest prefix (the first written
 * among equals), its one `*` replaced by what it matched; else the specifier under `baseUrl`.
 *
 * A tsconfig is the repository's word, and one of 2 MB holds 70,000 patterns that as many distinct
 * imports are matched against (get-tsconfig's matcher walks every pattern for every specifier:
 * 726 s). So the patterns are indexed once by their literal prefix, each answer is kept (a
 * specifier asked twice costs one look-up), and past `MAX_PATHS_ENTRIES` entries the rest are
 * ignored, and said so (`ignored`).
 */
import path from 'node:path';

/** The `paths` entries of one tsconfig honoured; no real project comes near it. */
export const MAX_PATHS_ENTRIES = 4096;

export interface PathsMatcher {
  /** Absolute candidate paths of `specifier`, in order; none for a relative one. The array is shared: never change it. */
  (specifier: string): readonly string[];
  /** Entries past `MAX_PATHS_ENTRIES`, ignored. */
  readonly ignored: number;
}

interface Pattern {
  prefix: string;
  suffix: string;
  substitutions: string[];
}

const RELATIVE = /^\.{1,2}(?:\/.*)?$/;

/**
 * A matcher for `paths` resolved against `base` (the folder of `baseUrl`, else of the tsconfig
 * that wrote `paths`); with `baseUrl`, a specifier no entry matches lies under `base`.
 */
export function pathsMatcher(options: { base: string; baseUrl: boolean; paths: unknown }): PathsMatcher {
  const { base, baseUrl } = options;
  const exact = new Map<string, string[]>();
  const byPrefix = new Map<string, Pattern[]>();
  let honoured = 0;
  let ignored = 0;
  const paths = options.paths && typeof options.paths === 'object' && !Array.isArray(options.paths) ? (options.paths as Record<string, unknown>) : {};
  for (const [key, value] of Object.entries(paths)) {
    if (honoured === MAX_PATHS_ENTRIES) {
      ignored++;
      continue;
    }
    honoured++;
    // TypeScript skips a key with more than one `*` (and reports it): so does waves.
    const star = key.indexOf('*');
    if (!Array.isArray(value) || (star >= 0 && key.indexOf('*', star + 1) >= 0)) continue;
    const substitutions = value.filter((s): s is string => typeof s === 'string');
    if (star < 0) {
      if (!exact.has(key)) exact.set(key, substitutions.map((s) => path.resolve(base, s)));
      continue;
    }
    const pattern = { prefix: key.slice(0, star), suffix: key.slice(star + 1), substitutions };
    const group = byPrefix.get(pattern.prefix);
    if (group) group.push(pattern);
    else byPrefix.set(pattern.prefix, [pattern]);
  }
  const prefixLengths = [...new Set([...byPrefix.keys()].map((p) => p.length))].sort((a, b) => b - a);
  const answers = new Map<string, readonly string[]>();

  const candidates = (specifier: string): readonly string[] => {
    if (RELATIVE.test(specifier)) return [];
    const known = exact.get(specifier);
    if (known) return known;
    for (const length of prefixLengths) {
      if (length > specifier.length) continue;
      const group = byPrefix.get(specifier.slice(0, length));
      if (!group) continue;
      for (const { suffix, substitutions } of group) {
        if (specifier.length < length + suffix.length || !specifier.endsWith(suffix)) continue;
        const match = specifier.slice(length, specifier.length - suffix.length);
        // As TypeScript does: an empty match leaves the `*` in place.
        return substitutions.map((s) => path.resolve(base, match === '' ? s : s.replace('*', match)));
      }
    }
    return baseUrl ? [path.join(base, specifier)] : [];
  };
  const matcher = (specifier: string): readonly string[] => {
    let answer = answers.get(specifier);
    if (!answer) answers.set(specifier, (answer = candidates(specifier)));
    return answer;
  };
  return Object.assign(matcher, { ignored });
}
