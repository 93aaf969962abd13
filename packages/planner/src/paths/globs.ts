/**
 * Globs over repository paths (dotfiles included), shared by the graph builder (workspace
 * patterns), scope (lanes, serial paths) and harvest (fences).
 *
 * Globs are a repository's text: a workspace's globs, a config's `serial` and lanes' `paths`. No
 * regular expression ever sees one. picomatch compiled them to backtracking regular expressions,
 * and shapes no shape-counting caught ran for hours with Ctrl-C unheard (`{a,aa}` repeated,
 * `\\*a` repeated, `{**,x}/` repeated; three `**` between `*a*` segments took seconds against one
 * long path). Braces are expanded up front to at most `MAX_GLOB_ALTERNATIVES` alternatives
 * (expand-braces.ts) and each is matched by our own matcher in O(glob length × path length)
 * (match-glob.ts, where the syntax is).
 */
import type { RepoPath } from '../types.js';
import { expandBraces } from './expand-braces.js';
import { compileGlob, hasWildcard, matchCompiled, splitPath, type CompiledGlob } from './match-glob.js';

/** The longest glob taken. */
export const MAX_GLOB_CHARS = 1024;
/** The alternatives a glob's braces may expand to (`{a,b}/{c,d}` is four): each is matched on its own. */
export const MAX_GLOB_ALTERNATIVES = 64;
/** The characters of those alternatives in all: matching one path costs their length times the path's. */
export const MAX_GLOB_EXPANDED_CHARS = 4096;

const BRACE_LIMITS = { alternatives: MAX_GLOB_ALTERNATIVES, chars: MAX_GLOB_EXPANDED_CHARS };

/** A glob waves will not match with, and why (one line). */
export class GlobError extends Error {}

interface ParsedGlob {
  /** The glob as written: a path equal to it matches (as picomatch has it: a folder named `[id]`). */
  text: string;
  /** An odd number of leading `!`: the glob matches what its body does not. */
  negated: boolean;
  /** Its braces expand to more than one alternative (before duplicates are dropped). */
  braces: boolean;
  alternatives: CompiledGlob[];
}

const parsedGlobs = new Map<string, ParsedGlob | null>();

/** The glob's leading `!`s and `./` taken off, its braces expanded and compiled (cached); null past the caps. */
function parseGlob(pattern: string): ParsedGlob | null {
  let parsed = parsedGlobs.get(pattern);
  if (parsed === undefined) {
    parsed = pattern.length > MAX_GLOB_CHARS ? null : parseUncached(pattern);
    parsedGlobs.set(pattern, parsed);
  }
  return parsed;
}

function parseUncached(pattern: string): ParsedGlob | null {
  let bangs = 0;
  while (pattern[bangs] === '!') bangs++;
  let body = pattern.slice(bangs);
  if (body.startsWith('./')) body = body.slice(2);
  const expanded = expandBraces(body, BRACE_LIMITS);
  if (!expanded.ok) return null;
  return { text: pattern, negated: bangs % 2 === 1, braces: expanded.alternatives.length > 1, alternatives: [...new Set(expanded.alternatives)].map(compileGlob) };
}

/**
 * Why a glob is refused, or null: over 1,024 characters, or braces that expand to more than 64
 * alternatives or 4,096 characters in all. Nothing else: any glob within those is matched in
 * O(4,096 × path length) at worst, whatever its stars.
 */
export function globProblem(pattern: string): string | null {
  if (pattern.length > MAX_GLOB_CHARS) return `longer than ${MAX_GLOB_CHARS} characters`;
  const expanded = expandBraces(pattern, BRACE_LIMITS);
  if (expanded.ok) return null;
  return expanded.past === 'alternatives'
    ? `its braces expand to more than ${MAX_GLOB_ALTERNATIVES} alternatives`
    : `its braces expand to more than ${MAX_GLOB_EXPANDED_CHARS.toLocaleString('en-US')} characters`;
}

/**
 * What matching a glob (one `globProblem` accepts) against one path costs, per character of the
 * path: the characters of its alternatives, braces expanded, each counted once more. For a
 * budget of matching work (read-workspace.ts).
 */
export function globMatchCost(pattern: string): number {
  const expanded = expandBraces(pattern, BRACE_LIMITS);
  if (!expanded.ok) return (pattern.length + 1) * MAX_GLOB_ALTERNATIVES;
  return expanded.alternatives.reduce((sum, alternative) => sum + alternative.length + 1, 0);
}

/**
 * Whether a pattern is a glob rather than a path: an unescaped `*` or `?`, a closed `[…]`, or
 * braces with a comma. A leading `!` alone does not make one (as picomatch's `scan` has it).
 */
export function isGlob(pattern: string): boolean {
  const parsed = parseGlob(pattern);
  return parsed === null || parsed.braces || parsed.alternatives.some(hasWildcard);
}

const matchers = new Map<string, (path: string) => boolean>();

/**
 * A cached matcher for a glob (dotfiles included: `.github/**` must match). Throws `GlobError` for
 * a glob `globProblem` refuses. The empty path matches nothing.
 */
export function globMatcher(pattern: string): (path: string) => boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    const problem = globProblem(pattern);
    const parsed = problem === null ? parseGlob(pattern) : null;
    if (parsed === null) throw new GlobError(`glob ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 79)}…` : pattern)}: ${problem}`);
    matcher = (path: string) => {
      if (path === '') return false;
      if (path === parsed.text) return true;
      const split = splitPath(path);
      return parsed.alternatives.some((glob) => matchCompiled(glob, split)) !== parsed.negated;
    };
    matchers.set(pattern, matcher);
  }
  return matcher;
}

/** Normalises a config path or glob: no `./`, no trailing slash (linear: see repo-paths.ts). */
export { normalisePattern } from './repo-paths.js';
