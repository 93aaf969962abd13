/**
 * A glob matcher of our own, in polynomial time whatever the glob: no regular expression ever
 * sees a glob. Globs are a repository's text (workspace globs, a config's `serial` and lanes), and
 * every engine that compiles them to a backtracking regular expression (picomatch, minimatch) can
 * be made to run for hours by one (`{a,aa}` repeated, `*a*a*a…b`, stars in braces).
 *
 * Algorithm: a glob (one brace alternative, see expand-braces.ts) is split into path segments.
 * - Inside a segment, `*`, `?` and `[…]` are matched by the greedy two-pointer wildcard algorithm
 *   (on a mismatch, resume just after the last `*`, which then takes one more character): O(g·p)
 *   for a glob segment of g tokens and a path segment of p characters, never exponential.
 * - `**` segments are matched by dynamic programming over segments: the set of path positions
 *   reachable after each glob segment, O(G·P) segment matches for G glob and P path segments.
 * So one alternative against one path costs at most O(glob length × path length).
 *
 * Semantics (picomatch's with `dot: true`, where it is consistent; README "Globs"):
 * - `/` separates segments, always (`\/` too; a class never holds one).
 * - `*` is any run of characters within a segment; `?` one character; `[abc]`, `[a-z]`,
 *   `[!a]` / `[^a]`, `[[:alpha:]]` one character of a class; an unclosed `[` is literal.
 * - A segment that is exactly `**` is a globstar: any number of segments, none included.
 *   Elsewhere `**` (and `***`) is `*`.
 * - Dotfiles are matched like any name, but a segment starting with `*` never matches `.`, `..`
 *   or an empty segment, and a globstar never crosses `.` or `..`.
 * - `\` makes the next character literal (so `\\*` is a literal `\` then a wildcard); a lone
 *   trailing `\` is itself.
 * - A path ending in `/` (a directory) also matches a glob whose last segment ends in `*`, as
 *   itself without that `/` (`a/*` matches `a/b/`, `.github/**` matches `.github/`).
 * - Everything else is literal: extglobs (`+(a|b)`), parentheses, `|`, `$`, `^`, `+`, `.`.
 * Leading `!` (negation), leading `./` and braces are handled by globs.ts.
 */

type Token = { kind: 'literal'; char: string } | { kind: 'any' } | { kind: 'star' } | { kind: 'class'; negated: boolean; test: (char: string) => boolean };

/** A compiled segment: a globstar, or the tokens of one path segment. */
type Segment = { globstar: true } | { globstar: false; tokens: Token[]; startsWithStar: boolean };

/** One brace alternative, compiled. */
export interface CompiledGlob {
  segments: Segment[];
  /** The last segment ends in `*` (or is a globstar): a directory path's trailing `/` may be dropped. */
  endsWithStar: boolean;
}

/** Whether a compiled glob matches anything but its own text (a wildcard or a class). */
export function hasWildcard(glob: CompiledGlob): boolean {
  return glob.segments.some((s) => s.globstar || s.tokens.some((t) => t.kind !== 'literal'));
}

/** Compiles one brace-free glob. Linear in its length. */
export function compileGlob(glob: string): CompiledGlob {
  const segments: Segment[] = [];
  for (const raw of splitSegments(glob)) {
    const globstar = raw.length === 2 && raw.every((t) => t.kind === 'star');
    // Consecutive globstars are one.
    if (globstar) {
      if (!segments.at(-1)?.globstar) segments.push({ globstar: true });
      continue;
    }
    segments.push({ globstar: false, tokens: raw, startsWithStar: raw[0]?.kind === 'star' });
  }
  const last = segments.at(-1);
  const endsWithStar = last !== undefined && (last.globstar || last.tokens.at(-1)?.kind === 'star');
  return { segments, endsWithStar };
}

/** The tokens of each segment, `\` escapes resolved. */
function splitSegments(glob: string): Token[][] {
  const chars = Array.from(glob);
  const segments: Token[][] = [];
  let tokens: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) {
      const next = chars[++i]!;
      if (next === '/') {
        segments.push(tokens);
        tokens = [];
      } else tokens.push({ kind: 'literal', char: next });
    } else if (c === '/') {
      segments.push(tokens);
      tokens = [];
    } else if (c === '*') tokens.push({ kind: 'star' });
    else if (c === '?') tokens.push({ kind: 'any' });
    else if (c === '[') {
      const parsed = parseClass(chars, i);
      if (parsed === null) tokens.push({ kind: 'literal', char: c });
      else {
        tokens.push(parsed.token);
        i = parsed.end;
      }
    } else tokens.push({ kind: 'literal', char: c });
  }
  segments.push(tokens);
  return segments;
}

const code = (c: string) => (c.length === 1 ? c.charCodeAt(0) : -1);
const within = (c: string, lo: string, hi: string) => c.length === 1 && lo <= c && c <= hi;
const isUpper = (c: string) => within(c, 'A', 'Z');
const isLower = (c: string) => within(c, 'a', 'z');
const isDigit = (c: string) => within(c, '0', '9');
const isGraph = (c: string) => within(c, '!', '~');

/** The POSIX classes of `[[:name:]]`, over ASCII as picomatch has them. */
const POSIX_CLASSES: Record<string, (c: string) => boolean> = {
  alnum: (c) => isUpper(c) || isLower(c) || isDigit(c),
  alpha: (c) => isUpper(c) || isLower(c),
  ascii: (c) => code(c) >= 0 && code(c) < 128,
  blank: (c) => c === ' ' || c === '\t',
  cntrl: (c) => (code(c) >= 0 && code(c) < 32) || code(c) === 127,
  digit: isDigit,
  graph: isGraph,
  lower: isLower,
  print: (c) => c === ' ' || isGraph(c),
  punct: (c) => isGraph(c) && !isUpper(c) && !isLower(c) && !isDigit(c),
  space: (c) => c === ' ' || within(c, '\t', '\r'),
  upper: isUpper,
  word: (c) => isUpper(c) || isLower(c) || isDigit(c) || c === '_',
  xdigit: (c) => isDigit(c) || within(c, 'a', 'f') || within(c, 'A', 'F'),
};

/**
 * The class opening at `chars[open]` (`[`) and the index of its closing `]`, or null when no `]`
 * closes it within the segment. A `]` right after `[` or `[!` is a member; `\` escapes one.
 */
function parseClass(chars: readonly string[], open: number): { token: Token; end: number } | null {
  let i = open + 1;
  const negated = chars[i] === '!' || chars[i] === '^';
  if (negated) i++;
  const singles = new Set<string>();
  const ranges: [string, string][] = [];
  const named: ((c: string) => boolean)[] = [];
  let first = true;
  for (; i < chars.length; i++) {
    let c = chars[i]!;
    if (c === '/') return null;
    if (c === ']' && !first) {
      const test = (ch: string) => singles.has(ch) || ranges.some(([lo, hi]) => lo <= ch && ch <= hi) || named.some((t) => t(ch));
      return { token: { kind: 'class', negated, test }, end: i };
    }
    first = false;
    if (c === '[' && chars[i + 1] === ':') {
      const close = posixClassEnd(chars, i + 2);
      if (close !== -1) {
        const name = chars.slice(i + 2, close).join('');
        const test = POSIX_CLASSES[name];
        if (test) {
          named.push(test);
          i = close + 1; // the `]` of `:]`
          continue;
        }
      }
    }
    if (c === '\\' && i + 1 < chars.length && chars[i + 1] !== '/') c = chars[++i]!;
    // A range `a-z`: a `-` first or last in the class is itself.
    if (chars[i + 1] === '-' && i + 2 < chars.length && chars[i + 2] !== ']' && chars[i + 2] !== '/') {
      let hi = chars[i + 2]!;
      i += 2;
      if (hi === '\\' && i + 1 < chars.length && chars[i + 1] !== '/') hi = chars[++i]!;
      ranges.push([c, hi]);
      continue;
    }
    singles.add(c);
  }
  return null;
}

/** The index of the `:` of a `:]` closing a POSIX class name started at `from`, or -1. */
function posixClassEnd(chars: readonly string[], from: number): number {
  for (let i = from; i < chars.length && i < from + 8; i++) {
    if (chars[i] === ':' && chars[i + 1] === ']') return i;
    if (!isLower(chars[i]!)) return -1;
  }
  return -1;
}

function matchesOne(token: Token, char: string): boolean {
  switch (token.kind) {
    case 'literal':
      return token.char === char;
    case 'any':
      return true;
    case 'class':
      return token.test(char) !== token.negated;
    case 'star':
      return false;
  }
}

/**
 * Whether a segment's tokens match a path segment (its characters), by the greedy two-pointer
 * algorithm: O(tokens × characters) at worst.
 */
function matchSegment(segment: Segment & { globstar: false }, text: string, chars: readonly string[]): boolean {
  if (segment.startsWithStar && (text === '' || text === '.' || text === '..')) return false;
  const tokens = segment.tokens;
  let t = 0;
  let c = 0;
  let starToken = -1;
  let starChar = 0;
  while (c < chars.length) {
    const token = tokens[t];
    if (token?.kind === 'star') {
      starToken = t++;
      starChar = c;
    } else if (token !== undefined && matchesOne(token, chars[c]!)) {
      t++;
      c++;
    } else if (starToken >= 0) {
      t = starToken + 1;
      c = ++starChar;
    } else return false;
  }
  while (tokens[t]?.kind === 'star') t++;
  return t === tokens.length;
}

/** A path split for matching: each segment's text and characters (code points). */
export interface SplitPath {
  texts: string[];
  chars: string[][];
}

export function splitPath(path: string): SplitPath {
  const texts = path.split('/');
  return { texts, chars: texts.map((t) => Array.from(t)) };
}

/**
 * Whether the compiled glob matches the path: the positions of the path reachable after each glob
 * segment, a globstar spreading over every later position up to a `.` or `..` segment.
 */
export function matchCompiled(glob: CompiledGlob, path: SplitPath): boolean {
  const n = path.texts.length;
  if (matchSegments(glob.segments, path, n)) return true;
  // A directory `a/b/` against `a/*`: the trailing `/` dropped.
  return glob.endsWithStar && n > 1 && path.texts[n - 1] === '' && matchSegments(glob.segments, path, n - 1);
}

function matchSegments(segments: readonly Segment[], path: SplitPath, n: number): boolean {
  let reach = new Uint8Array(n + 1);
  reach[0] = 1;
  for (const segment of segments) {
    const next = new Uint8Array(n + 1);
    let any = false;
    if (segment.globstar) {
      let on = false;
      for (let j = 0; j <= n; j++) {
        if (reach[j]) on = true;
        if (on) next[j] = 1;
        if (j < n && (path.texts[j] === '.' || path.texts[j] === '..')) on = false;
      }
      any = next.includes(1);
    } else {
      for (let j = 0; j < n; j++) {
        if (reach[j] && matchSegment(segment, path.texts[j]!, path.chars[j]!)) {
          next[j + 1] = 1;
          any = true;
        }
      }
    }
    if (!any) return false;
    reach = next;
  }
  return reach[n] === 1;
}
