/**
 * Where a source file's text looks like an import, whatever the lexer made of it: the offsets of
 * an `import`, `export` or `declare` that starts an import-shaped statement, and of `import(…)` and
 * `require(…)` with a string argument. `scanImports` compares them with the keywords its scan
 * reached: one it never reached lay inside what the lexer took for a comment, a string, a template
 * literal or a regular expression. That is where a wrong regex-or-division guess, or a backtick in
 * JSX text, hides real imports, and the file is then read by TypeScript's parser instead.
 *
 * Read over the raw text, independently of the lexer on purpose, and in one linear pass (each
 * keyword looks at most at the white space before it and a few characters after it). The shapes
 * are generous: a false candidate (an import in a code generator's template literal, commented-out
 * code at the start of a block comment's line) costs a parse; a missed one is an import lost silently.
 */

const KEYWORD = /import|export|require|declare/g;
/** After `import`/`require`: a call with a string argument (`import('./x')`, `require("./x")`), or a comment first. */
const CALL = /\s*\(\s*(?:['"`]|\/[*/])/y;
/** After a statement's `import`: a clause or a module name (not `import.meta`, not a call), or a comment first. */
const IMPORT_CLAUSE = /\s*(?:[{*'"\p{ID_Start}$_\\]|\/[*/])/uy;
/** After a statement's `export`: a re-export (`export *`, `export {`, `export type {`), or a comment first. */
const EXPORT_CLAUSE = /\s*(?:[*{]|type\s*(?:[*{]|\/[*/])|\/[*/])/y;
/** After a statement's `declare`: a module augmentation. */
const DECLARE_MODULE = /\s+module\s*['"]/y;
const WIDE_IDENT_PART = /[\p{ID_Continue}\u200c\u200d\ud800-\udfff]/u;
const WIDE_SPACE = /\s/;

function isIdentPart(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36;
  return WIDE_IDENT_PART.test(text[i]!);
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c >= 128 && WIDE_SPACE.test(String.fromCharCode(c)));
}

function isLineBreak(c: number): boolean {
  return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
}

/** Offsets (ascending, at most `limit`) of the keywords that start import-shaped text. */
export function findImportCandidates(text: string, limit = text.length): number[] {
  const out: number[] = [];
  KEYWORD.lastIndex = 0;
  for (let match = KEYWORD.exec(text); match !== null && match.index <= limit; match = KEYWORD.exec(text)) {
    const at = match.index;
    const word = match[0];
    const end = at + word.length;
    if ((at > 0 && isIdentPart(text, at - 1)) || (end < text.length && isIdentPart(text, end))) continue;
    // Look back over white space: a property (`loader.import(…)`) is no import; a statement starts
    // after a line break, `;`, `{`, `}`, `)` (after `do … while (x)`) or a comment's `*/`.
    let j = at - 1;
    let crossedLine = false;
    while (j >= 0 && isSpace(text.charCodeAt(j))) {
      if (isLineBreak(text.charCodeAt(j))) crossedLine = true;
      j--;
    }
    const before = j < 0 ? '' : text[j]!;
    if (before === '.' && text[j - 1] !== '.') continue;
    const statement = j < 0 || crossedLine || ';{})'.includes(before) || (before === '/' && text[j - 1] === '*');
    if ((word === 'import' || word === 'require') && matchesAt(CALL, text, end)) {
      if (word === 'import' && afterDocTag(text, j)) continue;
      out.push(at);
    }
    else if (!statement) continue;
    else if (word === 'import' ? matchesAt(IMPORT_CLAUSE, text, end) : word === 'export' ? matchesAt(EXPORT_CLAUSE, text, end) : word === 'declare' && matchesAt(DECLARE_MODULE, text, end)) out.push(at);
  }
  return out;
}

/**
 * Whether the text before `j` (the last character before an `import(`, white space skipped) is a
 * JSDoc tag's type: `@type {import('next').NextConfig}`, `@param {import('x').Y} y`, `@type
 * import('x').Z`. Never an import in valid code, wherever it stands — `@tag {` or `@tag import(`
 * parses as no statement or expression (a decorator needs a class or member after it), and in a
 * string, a comment or a template's text it is no import either — so the parser is not asked
 * about it: config files typed this way (`next.config.mjs`, `.eslintrc.js`) are most of what
 * loaded TypeScript on a cold build. (waves reads no JSDoc type as an import.)
 */
function afterDocTag(text: string, j: number): boolean {
  if (j >= 0 && text[j] === '{') {
    j--;
    while (j >= 0 && isSpace(text.charCodeAt(j))) j--;
  }
  const end = j;
  while (j >= 0 && /[A-Za-z]/.test(text[j]!)) j--;
  return j < end && j >= 0 && text[j] === '@';
}

function matchesAt(sticky: RegExp, text: string, at: number): boolean {
  sticky.lastIndex = at;
  return sticky.test(text);
}
