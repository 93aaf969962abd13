/**
 * Brace expansion of a glob, up front and capped: `src/{a,b}/*.{ts,tsx}` becomes its four
 * alternatives, each then matched on its own (match-glob.ts). Expanding instead of compiling an
 * alternation keeps every alternative a plain glob that the matcher takes in polynomial time; the
 * limits keep their number and length small (`{a,aa}` thirty-four times over is 2^34 alternatives:
 * refused), since matching costs their length in all times the path's.
 *
 * Algorithm: one pass pairs the braces with a stack (escape-aware), a recursive descent builds a
 * tree of literal runs and alternations, the number of alternatives and their length in all are
 * computed from the tree (saturating past the limits), and only within the limits are the
 * alternatives written out. Work is O(length × alternatives).
 *
 * Syntax, as bash and picomatch read it: `{x,y}` with at least one top-level unescaped comma is an
 * alternation (nested ones too, empty alternatives allowed); a brace pair without one (`{a}`,
 * `{1..3}`: ranges are not expanded) is literal text, its inside still expanded; an unpaired `{` or
 * `}` is literal; `\{`, `\}`, `\,` are literal. Backslashes are kept in the output, for the matcher.
 */

type Part = string | Alternation;
interface Alternation {
  options: Part[][];
}

/** What brace expansion may produce: at most `alternatives` alternatives of `chars` characters in all. */
export interface BraceLimits {
  alternatives: number;
  chars: number;
}

/**
 * The alternatives of `pattern`, in order, or the limit they would pass (nothing is written out
 * then). A pattern without an alternation is its only alternative.
 */
export function expandBraces(pattern: string, limits: BraceLimits): { ok: true; alternatives: string[] } | { ok: false; past: keyof BraceLimits } {
  const close = pairBraces(pattern);
  const tree = parseSequence(pattern, 0, pattern.length, close);
  const size = sizeOf(tree, limits);
  if (size.count > limits.alternatives) return { ok: false, past: 'alternatives' };
  if (size.chars > limits.chars) return { ok: false, past: 'chars' };
  return { ok: true, alternatives: expandSequence(tree) };
}

/** For each `{` paired with a later `}`, the index of that `}`; -1 for everything else. */
function pairBraces(pattern: string): Int32Array {
  const close = new Int32Array(pattern.length).fill(-1);
  const open: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '{') open.push(i);
    else if (c === '}' && open.length > 0) close[open.pop()!] = i;
  }
  return close;
}

/** The parts of `pattern[start, end)`: literal runs and the alternations of its paired braces. */
function parseSequence(pattern: string, start: number, end: number, close: Int32Array): Part[] {
  const parts: Part[] = [];
  let literal = '';
  let i = start;
  while (i < end) {
    const c = pattern[i]!;
    if (c === '\\') {
      literal += pattern.slice(i, i + 2);
      i += 2;
      continue;
    }
    const to = c === '{' ? close[i]! : -1;
    if (to < 0) {
      literal += c;
      i++;
      continue;
    }
    const commas = topLevelCommas(pattern, i + 1, to, close);
    if (commas.length === 0) {
      // `{a}`: literal braces around an expanded inside.
      literal += '{';
      for (const part of parseSequence(pattern, i + 1, to, close)) {
        if (typeof part === 'string') literal += part;
        else {
          if (literal !== '') parts.push(literal);
          literal = '';
          parts.push(part);
        }
      }
      literal += '}';
    } else {
      if (literal !== '') parts.push(literal);
      literal = '';
      const bounds = [i, ...commas, to];
      const options: Part[][] = [];
      for (let k = 0; k + 1 < bounds.length; k++) options.push(parseSequence(pattern, bounds[k]! + 1, bounds[k + 1]!, close));
      parts.push({ options });
    }
    i = to + 1;
  }
  if (literal !== '') parts.push(literal);
  return parts;
}

/** The unescaped commas of `pattern[start, end)` outside nested brace pairs. */
function topLevelCommas(pattern: string, start: number, end: number, close: Int32Array): number[] {
  const commas: number[] = [];
  for (let i = start; i < end; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '{' && close[i]! >= 0) i = close[i]!;
    else if (c === ',') commas.push(i);
  }
  return commas;
}

/**
 * The number of alternatives of a sequence and their length in all, each saturating just past its
 * limit (so the arithmetic stays small whatever the nesting).
 */
function sizeOf(parts: readonly Part[], limits: BraceLimits): { count: number; chars: number } {
  const cap = (size: { count: number; chars: number }) => ({ count: Math.min(size.count, limits.alternatives + 1), chars: Math.min(size.chars, limits.chars + 1) });
  let size = { count: 1, chars: 0 };
  for (const part of parts) {
    let tail = { count: 1, chars: 0 };
    if (typeof part === 'string') tail = { count: 1, chars: part.length };
    else {
      tail = { count: 0, chars: 0 };
      for (const option of part.options) {
        const one = sizeOf(option, limits);
        tail = cap({ count: tail.count + one.count, chars: tail.chars + one.chars });
      }
    }
    // Every head followed by every tail: each head's characters once per tail, and the other way.
    size = cap({ count: size.count * tail.count, chars: size.chars * tail.count + tail.chars * size.count });
  }
  return size;
}

function expandSequence(parts: readonly Part[]): string[] {
  let out = [''];
  for (const part of parts) {
    const tails = typeof part === 'string' ? [part] : part.options.flatMap(expandSequence);
    out = out.flatMap((head) => tails.map((tail) => head + tail));
  }
  return out;
}
