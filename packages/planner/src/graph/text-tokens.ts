/**
 * Words for matching an issue's text against paths, declared names and past commit subjects: the
 * same splitting on both sides — separators, camelCase and PascalCase humps, digits apart —
 * lower-cased, short and common English words dropped, a plural `s` taken off. Linear in the
 * input, no regular expression that can backtrack.
 */

const STOP = new Set(
  (
    'the a an and or of to in on for with without from by at as is are be been was were it its this that these those ' +
    'when while if then than not no do does did done can cannot should would will into onto over under after before ' +
    'about via use using used make makes made add adds added update updates updated fix fixes fixed feat chore refactor ' +
    'perf revert bump wip also more less some all any new old only just get gets ' +
    'set sets allow allows support supports handle handles correctly properly instead there their they them we our you your ' +
    'i me my he she his her which what who whom where why how has have had but so such other same up down out off'
  ).split(' '),
);

function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
/**
 * A character outside ASCII that separates words rather than spelling one: Latin-1's spaces and
 * signs (no-break space, «, », ·, ×), general punctuation (the Unicode spaces, zero-width
 * characters, dashes, quotes, …), CJK and full-width punctuation and spaces, variation selectors
 * and the byte-order mark. A title typed with a no-break or ideographic space has words too.
 */
function isWideSeparator(c: number): boolean {
  return (
    c <= 0xbf ||
    c === 0xd7 ||
    c === 0xf7 ||
    c === 0x1680 ||
    c === 0x180e ||
    (c >= 0x2000 && c <= 0x206f) ||
    (c >= 0x3000 && c <= 0x303f) ||
    (c >= 0xfe00 && c <= 0xfe0f) ||
    c === 0xfeff ||
    (c >= 0xff00 && c <= 0xff0f) ||
    (c >= 0xff1a && c <= 0xff20) ||
    (c >= 0xff3b && c <= 0xff40) ||
    (c >= 0xff5b && c <= 0xff65)
  );
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Calls `piece(start, end)` for each raw word piece of the text (camel humps, digit runs; a
 * non-ASCII character counts as a letter, unless it is a space or a sign: `isWideSeparator`)
 * until it returns false.
 */
function eachPiece(text: string, piece: (start: number, end: number) => boolean): void {
  const n = text.length;
  let start = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    const letter = isUpper(c) || isLower(c);
    const digit = isDigit(c);
    if (c < 128 ? !letter && !digit : isWideSeparator(c)) {
      if (start >= 0 && !piece(start, i)) return;
      start = -1;
      continue;
    }
    if (start < 0) {
      start = i;
      continue;
    }
    const p = text.charCodeAt(i - 1);
    // a hump: aB, or the last capital of a run before a lower-case (HTMLParser → html parser), or a digit boundary
    if ((isUpper(c) && isLower(p)) || (isUpper(c) && isUpper(p) && i + 1 < n && isLower(text.charCodeAt(i + 1))) || digit !== isDigit(p)) {
      if (!piece(start, i)) return;
      start = i;
    }
  }
  if (start >= 0) piece(start, n);
}

/** Splits text into raw word pieces (camel humps, digit runs), lower-cased; no filtering. */
export function splitPieces(text: string, out: string[] = [], limit = 4096): string[] {
  if (out.length >= limit) return out;
  eachPiece(text, (start, end) => {
    out.push(text.slice(start, end).toLowerCase());
    return out.length < limit;
  });
  return out;
}

/** A word's matching form: a plural `s` off (`routes` → `route`, not `ss`/`us`/`is`). */
export function stemWord(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1);
  return word;
}

/** The word a version number stands for (`4.3.0`, `v1.2.3-beta.1`): release commits read alike. */
export const VERSION_WORD = 'version#';

/** Matching words of a text: pieces of at least two letters, not stop words, stemmed; a version number is `VERSION_WORD`. */
export function matchWords(text: string, limit = 4096): string[] {
  const out: string[] = [];
  if (/(?:^|[\s@(])v?\d+\.\d+\.\d+/.test(text.slice(0, 300))) out.push(VERSION_WORD);
  for (const piece of splitPieces(text, [], limit)) {
    if (piece.length < 2 || STOP.has(piece) || isDigit(piece.charCodeAt(0))) continue;
    out.push(stemWord(piece));
  }
  return out;
}

export function isStopWord(word: string): boolean {
  return STOP.has(word.toLowerCase());
}

/** Keywords of JavaScript and TypeScript: in every file, so they would only take the places of the words that tell files apart. */
const KEYWORDS = new Set(
  (
    'export import return function const let var async await class interface type enum extends implements readonly public private ' +
    'protected static abstract declare namespace module require exports default case break continue throw try catch finally ' +
    'typeof instanceof keyof else switch while true false null undefined void string number boolean unknown never object symbol ' +
    'bigint this super yield delete satisfies infer constructor prototype proto'
  ).split(' '),
);

/** How many distinct words of a file's text are kept (the most frequent): enough to rank, small enough to cache. */
export const MAX_CONTENT_WORDS = 300;
/** How many word pieces of a file's text are counted (a generated file of megabytes says no more past this). */
export const MAX_CONTENT_PIECES = 20_000;
/** A longer run of letters (a hash, base64) is no word. */
export const MAX_WORD_LENGTH = 40;

/**
 * The words of a source file's text — identifiers split at their humps, comments, strings — with
 * how often each occurs: the `MAX_CONTENT_WORDS` most frequent, most frequent first (ties by word).
 * The same matching forms as `matchWords`, so that an issue's words meet them.
 */
export function contentWords(text: string): [word: string, count: number][] {
  // Pieces counted as written first, and each distinct one lower-cased, filtered and stemmed once:
  // a file repeats its words, and this runs over every source file of a cold build.
  const raw = new Map<string, number>();
  let pieces = 0;
  eachPiece(text, (start, end) => {
    const length = end - start;
    if (length < 2 || length > MAX_WORD_LENGTH || isDigit(text.charCodeAt(start))) return true;
    const piece = text.slice(start, end);
    raw.set(piece, (raw.get(piece) ?? 0) + 1);
    return ++pieces < MAX_CONTENT_PIECES;
  });
  const counts = new Map<string, number>();
  for (const [piece, count] of raw) {
    const lower = piece.toLowerCase();
    if (STOP.has(lower) || KEYWORDS.has(lower)) continue;
    const word = stemWord(lower);
    counts.set(word, (counts.get(word) ?? 0) + count);
  }
  const all = [...counts];
  all.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return all.length > MAX_CONTENT_WORDS ? all.slice(0, MAX_CONTENT_WORDS) : all;
}

/** Words with their counts as one string: `word*count`, or `word` when once, space-separated (a word holds neither). */
export function packWords(words: readonly (readonly [string, number])[]): string {
  return words.map(([word, count]) => (count === 1 ? word : `${word}*${count}`)).join(' ');
}

/** The words of a packed string with their counts (a count that does not read as one is 1), as bounded as `contentWords` makes them. */
export function unpackWords(packed: string): [string, number][] {
  if (packed === '') return [];
  return packed
    .split(' ', MAX_CONTENT_WORDS)
    .map((item) => {
      const star = item.lastIndexOf('*');
      const count = star < 0 ? 1 : Number(item.slice(star + 1));
      return star < 0 ? [item, 1] : [item.slice(0, star), Number.isInteger(count) && count > 0 ? Math.min(count, MAX_CONTENT_PIECES) : 1];
    });
}
