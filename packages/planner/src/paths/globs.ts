/**
 * Globs over repository paths (picomatch, dotfiles included), shared by the graph builder
 * (workspace patterns), scope (lanes, serial paths) and harvest (fences).
 */
import picomatch from 'picomatch';
import type { RepoPath } from '../types.js';

export function isGlob(pattern: string): boolean {
  return picomatch.scan(pattern).isGlob;
}

const matchers = new Map<string, (path: string) => boolean>();

/** The longest glob taken. */
export const MAX_GLOB_CHARS = 1024;
/** Wildcards (`*`) one path segment of a glob may hold, and `**` segments one glob may hold. */
const MAX_SEGMENT_STARS = 2;
const MAX_GLOBSTARS = 3;

/** A glob waves will not match with, and why (one line). */
export class GlobError extends Error {}

/**
 * Why a glob is refused, or null. picomatch compiles a glob into a regular expression that
 * backtracks: `*a*a*a…*ab` against a folder of many `a` takes longer with every star (14 of them
 * and a 44-character name took 289 s, Ctrl-C unheard). A repository's workspace globs and a
 * config's serial paths are the repository's text, so the shapes that backtrack are refused: more
 * than two `*` in one segment, more than three `**`, over 1,024 characters. Extglobs (`+(…)`,
 * `*(…)`) are read as plain characters (`noextglob`).
 */
export function globProblem(pattern: string): string | null {
  if (pattern.length > MAX_GLOB_CHARS) return `longer than ${MAX_GLOB_CHARS} characters`;
  let globstars = 0;
  for (const segment of pattern.split('/')) {
    if (segment === '**') {
      if (++globstars > MAX_GLOBSTARS) return `more than ${MAX_GLOBSTARS} \`**\` segments`;
      continue;
    }
    let stars = 0;
    for (let i = 0; i < segment.length; i++) if (segment[i] === '*' && segment[i - 1] !== '\\') stars++;
    if (stars > MAX_SEGMENT_STARS) return `more than ${MAX_SEGMENT_STARS} \`*\` in one path segment (${segment.length > 40 ? `${segment.slice(0, 39)}…` : segment})`;
  }
  return null;
}

/** A cached matcher for a glob (dotfiles included: `.github/**` must match). Throws `GlobError` for a glob `globProblem` refuses. */
export function globMatcher(pattern: string): (path: string) => boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    const problem = globProblem(pattern);
    if (problem !== null) throw new GlobError(`glob ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 79)}…` : pattern)}: ${problem}`);
    matcher = picomatch(pattern, { dot: true, noextglob: true });
    matchers.set(pattern, matcher);
  }
  return matcher;
}

/** Normalises a config path or glob: no `./`, no trailing slash (linear: see repo-paths.ts). */
export { normalisePattern } from './repo-paths.js';
