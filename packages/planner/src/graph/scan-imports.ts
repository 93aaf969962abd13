/**
 * Lists the module specifiers a source file imports, with the kind of each import.
 *
 * Algorithm: a single forward pass of a minimal JavaScript/TypeScript lexer — strings, template
 * literals (with nested `${}`), comments, regular expressions (told from division by the
 * previous token, as every JS tokenizer outside a parser does), identifiers and punctuation —
 * that only looks closer at the tokens `import`, `export`, `require` and `declare module`. No
 * AST, no allocation per token. Measured against TypeScript's `preProcessFile` (the scanner the
 * language service uses to find imports) on four real repositories it finds the same
 * specifiers, several times faster, and tells every kind apart (see bench/RESULTS.md).
 *
 * Recovery follows TypeScript's scanner: a quoted string ends at a line break, so the apostrophe
 * in JSX text (`<p>don't</p>`) cannot swallow the rest of a file.
 *
 * Guarantee: no import is lost silently to a wrong guess of the lexer (a regex read as a division,
 * a backtick in JSX text opening a template literal). Every place where the raw text looks like an
 * import (find-import-candidates.ts) must be one the scan reached as a keyword; where one was not
 * (it lay in what the lexer took for a string, template or regex, or a comment it may have misread),
 * the file is read by TypeScript's parser (parse-imports.ts) and its imports are preferred when it
 * parses cleanly. Otherwise — a syntax error, or a file too large or too deep to parse — the
 * imports are the union of the lexer's, the parser's, and a fresh scan from each unreached place:
 * more edges, never fewer.
 *
 * NOTE: a comment that starts its line before the lexer's first doubt (`Lexer.doubt`: a backtick
 * passed over outside such comments, or a string or regex cut short at a line break) and, in a
 * file that may hold JSX, before the first tag-like `<`, is taken as read: the lexer cannot be
 * inside out there.
 * Such comments (`@example` blocks, `require('x')` in prose) sent 1.2% of the 29,000 files of this
 * repository's node_modules to the parser (nine in ten of those that went); with the rule, 0.3% go
 * (bundles whose strings hold code). A comment opened mid-line may be a regex's `\//` or `[/*]`
 * read as code; one after a doubt may be template text read as code.
 */
import type { ImportKind } from '../types.js';
import { findImportCandidates } from './find-import-candidates.js';
import { COMMA, DOT, EQUALS, LBRACE, LPAREN, RBRACE, RPAREN, STAR } from './char-codes.js';
import { Lexer, Tok } from './js-lexer.js';
import { parseImports } from './parse-imports.js';

export interface ScannedImport {
  specifier: string;
  kind: ImportKind;
}

/** Most tokens an import or export clause may span before we give up on it. */
const CLAUSE_LIMIT = 4096;

/**
 * How far a fresh scan at an unreached place reads (when the parser cannot help): the first
 * `WIDE_RESCANS` places get a clause's `CLAUSE_LIMIT` tokens' worth, the rest 1 KB — at most some
 * 350 million characters lexed for a 2 MB file that is nothing but import-shaped places.
 */
const RESCAN_WINDOW = 32_768;
const WIDE_RESCANS = 1000;
const NARROW_RESCAN_WINDOW = 1024;

/**
 * A file's imports, and who read them: the lexer alone, TypeScript's parser (a clean parse), or
 * both and a rescan (their union); `deferred` when the parser was asked not to run (the lexer's
 * reading then is not the answer: the file is read again where the parser may run).
 */
export interface ImportReading {
  imports: ScannedImport[];
  by: 'lexer' | 'parser' | 'union' | 'deferred';
}

/**
 * Every import of one file, in source order. `file` (its path, for its extension) tells the parser
 * fallback TypeScript from JSX; without it the text is read as TSX.
 */
export function scanImports(text: string, file = 'file.tsx'): ScannedImport[] {
  return readImports(text, file).imports;
}

/**
 * `scanImports`, saying which reading its answer is. With `parse: false` a file the lexer cannot
 * read alone is `deferred` rather than handed to TypeScript (whose loading costs a thread about
 * 0.4 s and 90 MB: the scan pool has it done on one thread only).
 */
export function readImports(text: string, file = 'file.tsx', { parse = true }: { parse?: boolean } = {}): ImportReading {
  if (!text.includes('import') && !text.includes('require') && !text.includes('export') && !text.includes('module') && !text.includes('<reference')) return { imports: [], by: 'lexer' };
  // Every import names one of these words; past the last of them there is nothing left to find.
  const limit = Math.max(text.lastIndexOf('import'), text.lastIndexOf('from'), text.lastIndexOf('require'), text.lastIndexOf('module'));
  const candidates = findImportCandidates(text, limit);
  const reached = new Reached(candidates);
  const lex = new Lexer(text);
  if (candidates.length > 0) lex.comments = [];
  const imports = lexImports(lex, text, limit, reached);
  const unreached = reached.unreached().filter((at) => !inPlainComment(lex, text, at, !/\.[cm]?ts$/.test(file)));
  if (unreached.length === 0) return { imports, by: 'lexer' };
  if (!parse) return { imports, by: 'deferred' };
  const parsed = parseImports(text, file);
  if (parsed?.clean) return { imports: parsed.imports, by: 'parser' };
  // NOTE: no clean parse, so nobody knows better: keep every reading (a false edge costs
  // parallelism, a lost one a conflict).
  const union = new Map<string, ScannedImport>();
  const add = (i: ScannedImport) => union.set(`${i.kind}:${i.specifier}`, i);
  imports.forEach(add);
  parsed?.imports.forEach(add);
  unreached.forEach((at, i) => rescanAt(text, at, i < WIDE_RESCANS ? RESCAN_WINDOW : NARROW_RESCAN_WINDOW).forEach(add));
  return { imports: [...union.values()], by: 'union' };
}

/** The import-shaped places of the text, ticked off as the scan reaches their keywords (in ascending order). */
class Reached {
  private next = 0;
  private readonly missed: number[] = [];

  constructor(private readonly candidates: number[]) {}

  /** The scan reached a keyword at `offset`: every candidate before it was passed over unseen. */
  at(offset: number): void {
    const c = this.candidates;
    while (this.next < c.length && c[this.next]! < offset) this.missed.push(c[this.next++]!);
    if (this.next < c.length && c[this.next] === offset) this.next++;
  }

  /** The scan reached the keyword at `offset` but gave up on its clause (see `parseClause`). */
  miss(offset: number): void {
    this.missed.push(offset);
  }

  /** In ascending order. */
  unreached(): number[] {
    return [...this.missed, ...this.candidates.slice(this.next)].sort((a, b) => a - b);
  }
}

/** Whether `at` lies in a comment the lexer cannot have misread: one that starts its line before anything that could turn the lexer inside out. */
function inPlainComment(lex: Lexer, text: string, at: number, jsx: boolean): boolean {
  const comments = lex.comments ?? [];
  // The last comment starting at or before `at` (pairs of start and end, in order).
  let lo = 0;
  let hi = comments.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comments[2 * mid]! <= at) lo = mid + 1;
    else hi = mid;
  }
  if (lo === 0) return false;
  const start = comments[2 * (lo - 1)]!;
  if (at >= comments[2 * (lo - 1) + 1]!) return false;
  const doubt = Math.min(...[lex.doubt, jsx ? lex.firstTagLike : -1].filter((d) => d >= 0), Infinity);
  if (start > doubt) return false;
  let j = start - 1;
  while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--;
  return j < 0 || text[j] === '\n' || text[j] === '\r' || text[j] === '\u2028' || text[j] === '\u2029';
}

/** The lexer's reading: the single forward pass. */
function lexImports(lex: Lexer, text: string, limit: number, reached: Reached): ScannedImport[] {
  const out: ScannedImport[] = [];
  let afterDot = false; // the previous token was `.`: a property named like a keyword
  let afterTypeof = false;
  let topLevelModuleSyntax = false;
  lex.next();
  while (lex.type !== Tok.EOF && lex.start <= limit) {
    if (lex.type === Tok.Ident && lex.depth === 0 && !afterDot && (lex.isIdent('export') || lex.isIdent('import'))) {
      const importCall = lex.isIdent('import') && /^\s*[(.]/.test(text.slice(lex.end, lex.end + 8));
      if (!importCall) topLevelModuleSyntax = true;
    }
    if (lex.type === Tok.Ident && !afterDot) {
      reached.at(lex.start);
      if (handleKeyword(lex, out, afterTypeof, reached)) {
        afterDot = false;
        afterTypeof = false;
        continue;
      }
    }
    afterDot = lex.isPunct(DOT);
    afterTypeof = lex.isIdent('typeof');
    lex.next();
  }
  // Past `limit` only `export` statements can remain: a module needs no more than one of them.
  if (!topLevelModuleSyntax && out.some((i) => (i as Augmentation).augmentation)) topLevelModuleSyntax = hasTopLevelExport(lex);
  const isModule = topLevelModuleSyntax;
  const imports = out.filter((i) => isModule || !(i as Augmentation).augmentation).map(({ specifier, kind }) => ({ specifier, kind }));
  return lex.references.length === 0 ? imports : [...lex.references.map((specifier) => ({ specifier, kind: 'type' as const })), ...imports];
}

/** The import a fresh lexer reads at `at`, an import-shaped place the first scan passed over (augmentations kept). */
function rescanAt(text: string, at: number, window: number): ScannedImport[] {
  const out: ScannedImport[] = [];
  const lex = new Lexer(text.slice(at, at + window));
  lex.next();
  handleKeyword(lex, out, false, new Reached([]));
  return out.map(({ specifier, kind }) => ({ specifier, kind }));
}

/** Lexes on from where the scan stopped, looking for an `export` at the top level. */
function hasTopLevelExport(lex: Lexer): boolean {
  let afterDot = false;
  while (lex.type !== Tok.EOF) {
    if (lex.type === Tok.Ident && lex.depth === 0 && !afterDot && lex.isIdent('export')) return true;
    afterDot = lex.isPunct(DOT);
    lex.next();
  }
  return false;
}

interface Augmentation extends ScannedImport {
  augmentation?: boolean;
}

/** Handles a token that may start an import; returns false when it does not (the token is left as is). */
function handleKeyword(lex: Lexer, out: ScannedImport[], afterTypeof: boolean, reached: Reached): boolean {
  const at = lex.start;
  if (lex.isIdent('import')) {
    lex.next();
    if (lex.isPunct(LPAREN)) {
      // import('x') and import('x', { with: … })
      const specifier = callArgument(lex, true);
      if (specifier !== null) out.push({ specifier, kind: afterTypeof ? 'type' : 'dynamic' });
    } else if (lex.isPunct(DOT)) {
      lex.next(); // import.meta
    } else if (lex.isSpecifier()) {
      out.push({ specifier: lex.value, kind: 'static' });
      lex.next();
    } else if (!parseClause(lex, out, 'import', reached)) reached.miss(at);
    return true;
  }
  if (lex.isIdent('export')) {
    lex.next();
    if ((lex.isIdent('type') || lex.isPunct(STAR) || lex.isPunct(LBRACE)) && !parseClause(lex, out, 'export', reached)) reached.miss(at);
    return true;
  }
  if (lex.isIdent('require')) {
    lex.next();
    const specifier = lex.isPunct(LPAREN) ? callArgument(lex, false) : null;
    if (specifier !== null) out.push({ specifier, kind: 'require' });
    return true;
  }
  if (lex.isIdent('declare')) {
    lex.next();
    if (lex.isIdent('module')) {
      lex.next();
      // In a module, `declare module 'x'` augments x and depends on it; in a script (no import or
      // export, such as a `client.d.ts` of `declare module '*.css'`) it declares x: no dependency.
      if (lex.isSpecifier() && !lex.value.includes('*')) {
        out.push({ specifier: lex.value, kind: 'static', augmentation: true } as ScannedImport);
        lex.next();
      }
    }
    return true;
  }
  return false;
}

/** From `(`: the string literal that is the call's only argument (or its first, with `more`), else null. */
function callArgument(lex: Lexer, more: boolean): string | null {
  lex.next();
  if (!lex.isSpecifier()) return null;
  const specifier = lex.value;
  lex.next();
  return lex.isPunct(RPAREN) || (more && lex.isPunct(COMMA)) ? specifier : null;
}

/**
 * After `import` (not followed by `(` or a string) or `export` (followed by `type`, `*` or `{`):
 * reads the clause up to its `from "x"`, or `= require("x")` for `import x = require("x")`.
 * False when it gave up (a clause of more than `CLAUSE_LIMIT` tokens, or the end of the file):
 * the clause was not read, and the caller counts its keyword as unreached.
 */
function parseClause(lex: Lexer, out: ScannedImport[], keyword: 'import' | 'export', reached: Reached): boolean {
  let isType = false;
  if (lex.isIdent('type')) {
    lex.next();
    if (lex.isIdent('from')) {
      // `import type from './x'`: a default import named `type`.
      lex.next();
      if (lex.isSpecifier()) {
        out.push({ specifier: lex.value, kind: 'static' });
        lex.next();
      }
      return true;
    }
    if (!lex.isPunct(EQUALS) && !lex.isPunct(COMMA)) isType = true;
  }
  if (keyword === 'export') {
    // `export * from`, `export * as ns from`, `export { a } from`; anything else has no source.
    if (lex.isPunct(STAR)) {
      lex.next();
      if (lex.isIdent('as')) {
        lex.next();
        lex.next();
      }
    } else if (lex.isPunct(LBRACE)) {
      if (!skipBraces(lex)) return false;
    } else return true;
    if (!lex.isIdent('from')) return true;
    lex.next();
    if (lex.isSpecifier()) {
      out.push({ specifier: lex.value, kind: isType ? 'type' : 'reexport' });
      lex.next();
    }
    return true;
  }
  // import a, { b } from / import * as ns from / import x = require() / import x = N.y
  for (let count = 0; count < CLAUSE_LIMIT && lex.type !== Tok.EOF; count++) {
    if (lex.isPunct(LBRACE)) {
      if (!skipBraces(lex)) return false;
      continue;
    }
    if (lex.isIdent('from')) {
      lex.next();
      if (lex.isSpecifier()) {
        out.push({ specifier: lex.value, kind: isType ? 'type' : 'static' });
        lex.next();
        return true;
      }
      continue; // `import from from './x'`
    }
    if (lex.isPunct(EQUALS)) {
      lex.next();
      if (lex.isIdent('require')) {
        reached.at(lex.start); // `import x = require('x')`
        lex.next();
        if (lex.isPunct(LPAREN)) {
          lex.next();
          if (lex.isSpecifier()) {
            out.push({ specifier: lex.value, kind: 'require' });
            lex.next();
          }
        }
      }
      return true;
    }
    if (lex.type !== Tok.Ident && !lex.isPunct(STAR) && !lex.isPunct(COMMA)) return true;
    lex.next();
  }
  return false;
}

/** From a `{`, moves past its matching `}`; false when the file ends first, or `CLAUSE_LIMIT` tokens pass. */
function skipBraces(lex: Lexer): boolean {
  let depth = 0;
  for (let count = 0; count < CLAUSE_LIMIT && lex.type !== Tok.EOF; count++) {
    if (lex.isPunct(LBRACE)) depth++;
    else if (lex.isPunct(RBRACE) && --depth === 0) {
      lex.next();
      return true;
    }
    lex.next();
  }
  return false;
}
