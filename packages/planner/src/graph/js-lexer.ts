/**
 * A minimal JavaScript/TypeScript lexer — strings, template literals (with nested `${}`),
 * comments, regular expressions (told from division by the previous token, as every JS tokenizer
 * outside a parser does), identifiers and punctuation — shared by the import scan
 * (`scan-imports.ts`) and the declaration scan (`scan-symbols.ts`). No AST, no allocation per token.
 *
 * Recovery follows TypeScript's scanner: a quoted string ends at a line break, so the apostrophe
 * in JSX text (`<p>don't</p>`) cannot swallow the rest of a file; a `//` comment and a regular
 * expression end at any line terminator, U+2028 and U+2029 included.
 *
 * NOTE: the regex-or-division guess is a heuristic (acorn's, simplified: see `braceOpensBlock`),
 * and JSX text is read as code. Where the guess is wrong a backtick can open a template literal
 * that swallows imports; `scanImports` checks for that (import-shaped text the scan never reached)
 * and asks TypeScript's parser instead.
 */
import { BACKSLASH, BACKTICK, BANG, COLON, COMMA, CR, DOLLAR, DOT, DQUOTE, EQUALS, GT, LBRACE, LBRACKET, LPAREN, LS, LT, MINUS, NL, PLUS, PS, QUOTE, RBRACE, RBRACKET, RPAREN, SEMI, SLASH, SPACE_CHAR, STAR, TAB } from './char-codes.js';

export const enum Tok {
  EOF,
  Ident,
  String,
  Punct,
  Number,
  Regex,
}

/** The longest template literal text kept whole (`Lexer.template`). */
const MAX_TEMPLATE = 300;

// Character classes of ASCII codes, for the hot loop (anything above 127 is an identifier part).
const SPACE = 1;
const IDENT = 2;
const DIGIT = 4;
const CLASS = new Uint8Array(128);
for (const c of [9, 10, 11, 12, 13, 32]) CLASS[c] = SPACE;
for (let c = 65; c <= 90; c++) CLASS[c] = IDENT;
for (let c = 97; c <= 122; c++) CLASS[c] = IDENT;
for (const c of [95, DOLLAR, 35]) CLASS[c] = IDENT;
for (let c = 48; c <= 57; c++) CLASS[c] = DIGIT;

/** White space and line terminators above ASCII, as TypeScript's scanner has them (`\u3000import` is an import). */
function isWideSpace(c: number): boolean {
  return c === 0xa0 || c === 0x85 || c === 0x1680 || (c >= 0x2000 && c <= 0x200b) || c === LS || c === PS || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

function isIdentStart(c: number): boolean {
  return c < 128 ? CLASS[c] === IDENT : !isWideSpace(c);
}

function isIdentPart(c: number): boolean {
  return c < 128 ? (CLASS[c]! & (IDENT | DIGIT)) !== 0 : !isWideSpace(c);
}

function isLineBreak(c: number): boolean {
  return c === NL || c === CR || c === LS || c === PS;
}

/** Keywords whose parenthesised condition a statement follows: a `/` after its `)` starts a regular expression. */
const CONDITION_KEYWORDS = new Set(['if', 'while', 'for', 'with']);
/** Open parentheses and braces tracked (a file of a million `(` is not worth a million entries). */
const MAX_PARENS = 4096;

/**
 * Keywords after which an expression starts: a `/` starts a regular expression rather than a
 * division, and a `{` an object literal rather than a block (`else` and `do` excepted there).
 */
const REGEX_AFTER = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await', 'default', 'extends']);
/** Keywords after which a line break ends the statement (ASI): a `{` on the next line opens a block. */
const RESTRICTED = new Set(['return', 'yield', 'await', 'throw']);

export class Lexer {
  pos = 0;
  type: Tok = Tok.EOF;
  start = 0;
  end = 0;
  /** For strings: the value (escapes kept as written, which is what module specifiers contain). */
  value = '';
  /** Whether `value` holds the current string token's text (a terminated quoted string, or a template literal's head). */
  hasValue = false;
  /** Whether the current string token is a template literal with substitutions (not a specifier). */
  private substitutions = false;
  private prevType: Tok = Tok.EOF;
  private prevChar = 0;
  private prevStart = 0;
  private prevEnd = 0;
  /** The token before the previous one: a `.` makes a keyword a property name (`x.default / 2`), a `for` makes `for await (` a loop head, an operand makes `!` TypeScript's non-null assertion (`x! / 2`). */
  private beforePrevType: Tok = Tok.EOF;
  private beforePrevChar = 0;
  private beforePrevStart = 0;
  private beforePrevEnd = 0;
  /** Brace depths at which a template literal's `${` was opened. */
  private readonly templates: number[] = [];
  /** The text so far of each template literal left open at a `${` (its holes written `${}`; null once longer than `MAX_TEMPLATE`). */
  private readonly templateTexts: (string | null)[] = [];
  /** On the token that closes a template literal with substitutions: its whole text, each substitution written `${}` (else null). */
  template: string | null = null;
  /** Brace depth: 0 at the top level of the file. */
  depth = 0;
  /** For each `(` open: whether it holds the condition of `if`, `while`, `for` or `with`. */
  private readonly parens: boolean[] = [];
  /** Whether the last `)` closed such a condition. */
  private closedCondition = false;
  /** For each `{` open: whether it opens a block (true) or an object literal or other expression (false). */
  private readonly braces: boolean[] = [];
  /** `{` opened past `MAX_PARENS` (not tracked: their `}` reads as the end of an expression). */
  private untrackedBraces = 0;
  /** Whether the last `}` closed a block: a statement may follow, and a `/` starts a regular expression. */
  private closedBlock = false;

  /** Files named by triple-slash reference directives, in order. */
  readonly references: string[] = [];
  /** When set, the start and end of each comment passed over are appended (`scanImports` checks what it passed over). */
  comments: number[] | null = null;
  /**
   * Where the lexer may first have lost its way (-1 while it cannot have): the first backtick it
   * passed over — a template literal's, or one inside a string, a regular expression or a comment
   * that does not start its line — or the first string or regular expression cut short by a line
   * break. Before it the lexer cannot be inside out (reading template text as code); a regular
   * expression read as a division or the reverse shows here, as what it swallowed does.
   */
  doubt = -1;
  /** The first backtick at or after where `hasBacktick` last looked from (the text's length if none): each found once, so that looking is linear. */
  private nextBacktick = -1;
  /** Where the first `<` followed by a name, `/` or `>` is (-1 while none is): in a JSX file, text read as code may follow. */
  firstTagLike = -1;

  constructor(private readonly text: string) {}

  private tripleSlash(line: string): void {
    const match = /^\/\/\/\s*<reference\s+(path|types)\s*=\s*(["'])([^"'\n]+)\2/.exec(line);
    if (!match) return;
    const [, attribute, , target] = match;
    // A `types` reference names a package (external) unless it is a relative path.
    if (attribute === 'path' || target!.startsWith('.')) this.references.push(attribute === 'path' && !target!.startsWith('.') ? `./${target}` : target!);
  }

  /** The identifier text of the current token (identifiers only). */
  ident(): string {
    return this.text.slice(this.start, this.end);
  }

  isIdent(word: string): boolean {
    return this.type === Tok.Ident && this.end - this.start === word.length && this.text.startsWith(word, this.start);
  }

  /** The character of a one-character punctuation token, else -1. */
  punctCode(): number {
    return this.type === Tok.Punct && this.end - this.start === 1 ? this.text.charCodeAt(this.start) : -1;
  }

  isPunct(code: number): boolean {
    return this.type === Tok.Punct && this.text.charCodeAt(this.start) === code && this.end - this.start === 1;
  }

  /** A string literal usable as a module specifier. */
  isSpecifier(): boolean {
    return this.type === Tok.String && !this.substitutions;
  }

  private doubtAt(at: number): void {
    if (this.doubt < 0) this.doubt = at;
  }

  /** Whether a backtick lies in [from, to). */
  private hasBacktick(from: number, to: number): boolean {
    if (this.nextBacktick < from) {
      const at = this.text.indexOf('`', from);
      this.nextBacktick = at < 0 ? this.text.length : at;
    }
    return this.nextBacktick < to;
  }

  /** Whether only spaces and tabs stand between the start of the line and `at`. */
  private startsLine(at: number): boolean {
    let j = at - 1;
    while (j >= 0 && (this.text.charCodeAt(j) === SPACE_CHAR || this.text.charCodeAt(j) === TAB)) j--;
    return j < 0 || isLineBreak(this.text.charCodeAt(j));
  }

  /** A comment from `start` to `end`: recorded, and a doubt if it may be code read wrongly (see `doubt`). */
  private comment(start: number, end: number): void {
    this.comments?.push(start, end);
    if (this.doubt < 0 && this.hasBacktick(start, end) && !this.startsLine(start)) this.doubt = start;
  }

  private beforePrevIsDot(): boolean {
    return this.beforePrevType === Tok.Punct && this.beforePrevChar === DOT && this.beforePrevEnd - this.beforePrevStart === 1;
  }

  /** Whether the previous token is a keyword after which an expression starts (not a property named like one). */
  private afterExpressionKeyword(): boolean {
    return this.prevType === Tok.Ident && !this.beforePrevIsDot() && this.prevEnd - this.prevStart <= 10 && REGEX_AFTER.has(this.text.slice(this.prevStart, this.prevEnd));
  }

  /** Whether the token before the previous one ends an operand: a `!` after it is TypeScript's non-null assertion, not a negation. */
  private beforePrevEndsOperand(): boolean {
    switch (this.beforePrevType) {
      case Tok.Number:
      case Tok.String:
        return true;
      case Tok.Ident: {
        const length = this.beforePrevEnd - this.beforePrevStart;
        return length > 10 || !REGEX_AFTER.has(this.text.slice(this.beforePrevStart, this.beforePrevEnd));
      }
      case Tok.Punct:
        return this.beforePrevChar === RBRACKET || (this.beforePrevChar === RPAREN && !this.closedCondition);
      default:
        return false;
    }
  }

  private regexAllowed(): boolean {
    switch (this.prevType) {
      case Tok.EOF:
        return true;
      case Tok.Ident:
        return this.afterExpressionKeyword();
      case Tok.Punct:
        if (this.prevChar === RPAREN) return this.closedCondition;
        if (this.prevChar === RBRACE) return this.closedBlock;
        // `i++ / n`: a postfix `++` or `--` ends an operand; so does `x!` in TypeScript.
        if ((this.prevChar === PLUS || this.prevChar === MINUS) && this.text.charCodeAt(this.prevStart - 1) === this.prevChar) return false;
        if (this.prevChar === BANG && this.beforePrevEndsOperand()) return false;
        return this.prevChar !== RBRACKET;
      default:
        return false;
    }
  }

  /** Whether a `(` here holds the condition of `if`, `while`, `for`, `with` or `for await`. */
  private opensCondition(): boolean {
    if (this.prevType !== Tok.Ident || this.beforePrevIsDot() || this.prevEnd - this.prevStart > 5) return false;
    const word = this.text.slice(this.prevStart, this.prevEnd);
    if (CONDITION_KEYWORDS.has(word)) return true;
    return word === 'await' && this.beforePrevType === Tok.Ident && this.beforePrevEnd - this.beforePrevStart === 3 && this.text.startsWith('for', this.beforePrevStart);
  }

  /**
   * Whether the `{` at `at` opens a block (or a class, interface or module body): after its `}` a
   * statement may start, so a `/` starts a regular expression (`function f() {}` then `/re/.test(s)`).
   * Otherwise it opens an object literal (or a type literal, a JSX attribute), after which a `/`
   * divides. Decided by the previous token, as acorn's `braceIsBlock` does.
   */
  private braceOpensBlock(at: number): boolean {
    // `{...props}` in JSX, `{ ...rest }` in an object: a block never starts with a spread.
    let j = at + 1;
    while (j < this.text.length && (this.text.charCodeAt(j) === SPACE_CHAR || this.text.charCodeAt(j) === TAB || isLineBreak(this.text.charCodeAt(j)))) j++;
    if (this.text.startsWith('...', j)) return false;
    switch (this.prevType) {
      case Tok.Punct:
        switch (this.prevChar) {
          case RPAREN: // if (…) {, function f() {, catch (e) {, switch (x) {
          case SEMI:
          case LBRACE:
          case RBRACE:
            return true;
          case COLON: // `case 1: {` and `label: {` in a block; `a: {` in an object literal
            return this.braces.length === 0 ? true : this.braces[this.braces.length - 1]!;
          case GT: // an arrow function's body
            return this.text.charCodeAt(this.prevStart - 1) === EQUALS;
          default:
            return false;
        }
      case Tok.Ident: {
        if (!this.afterExpressionKeyword()) return true; // class A {, interface I {, try {, import {
        const word = this.text.slice(this.prevStart, this.prevEnd);
        if (word === 'else' || word === 'do') return true;
        // `return` then a line break: the statement has ended and the `{` opens a block.
        return RESTRICTED.has(word) && /[\n\r\u2028\u2029]/.test(this.text.slice(this.prevEnd, at));
      }
      default:
        return true; // the start of the file; declare module 'x' {
    }
  }

  next(): void {
    this.template = null;
    // Remember the previous significant token for the regex decision.
    if (this.type !== Tok.EOF || this.pos > 0) {
      this.beforePrevType = this.prevType;
      this.beforePrevChar = this.prevChar;
      this.beforePrevStart = this.prevStart;
      this.beforePrevEnd = this.prevEnd;
      this.prevType = this.type;
      if (this.type === Tok.Punct) this.prevChar = this.text.charCodeAt(this.end - 1);
      this.prevStart = this.start;
      this.prevEnd = this.end;
    }
    const text = this.text;
    const n = text.length;
    let i = this.pos;
    for (;;) {
      if (i >= n) {
        this.type = Tok.EOF;
        this.start = this.end = this.pos = n;
        return;
      }
      const c = text.charCodeAt(i);
      if (c < 128 ? CLASS[c] === SPACE : isWideSpace(c)) {
        i++;
        continue;
      }
      if (c === SLASH) {
        const d = text.charCodeAt(i + 1);
        if (d === SLASH) {
          const start = i;
          i += 2;
          while (i < n && !isLineBreak(text.charCodeAt(i))) i++;
          this.comment(start, i);
          // `/// <reference path="…" />` and `/// <reference types="./…" />` name files too.
          if (text.charCodeAt(start + 2) === SLASH) this.tripleSlash(text.slice(start, i));
          continue;
        }
        if (d === STAR) {
          const close = text.indexOf('*/', i + 2);
          this.comment(i, close < 0 ? n : close + 2);
          i = close < 0 ? n : close + 2;
          continue;
        }
      }
      this.start = i;
      if (isIdentStart(c)) {
        i++;
        for (; i < n; i++) {
          const d = text.charCodeAt(i);
          if (d < 128 ? (CLASS[d]! & (IDENT | DIGIT)) === 0 : !isIdentPart(d)) break;
        }
        this.type = Tok.Ident;
      } else if (c === QUOTE || c === DQUOTE) {
        i = this.scanString(i, c);
      } else if (c === BACKTICK) {
        this.doubtAt(i);
        i = this.scanTemplate(i + 1, true);
      } else if (c >= 48 && c <= 57) {
        i++;
        while (i < n && (isIdentPart(text.charCodeAt(i)) || text.charCodeAt(i) === DOT)) i++;
        this.type = Tok.Number;
      } else if (c === SLASH && this.regexAllowed()) {
        i = this.scanRegex(i + 1);
      } else if (c === RBRACE && this.templates.length > 0 && this.templates[this.templates.length - 1] === this.depth) {
        // The end of a `${…}` substitution: the template literal goes on.
        this.templates.pop();
        i = this.scanTemplate(i + 1, false);
      } else {
        if (c === LBRACE) {
          this.depth++;
          if (this.braces.length < MAX_PARENS) this.braces.push(this.braceOpensBlock(i));
          else this.untrackedBraces++;
        } else if (c === RBRACE) {
          this.depth--;
          if (this.untrackedBraces > 0) {
            this.untrackedBraces--;
            this.closedBlock = false;
          } else this.closedBlock = this.braces.pop() ?? false;
        } else if (c === LPAREN) {
          // Whether this `(` holds the condition of `if`/`while`/`for`/`with` (or `for await`):
          // after its `)` a `/` starts a regular expression (`if (s) /`/.test(s)`), not a division
          // — read as one, the regex's backtick opened a template literal that swallowed the
          // imports after it.
          if (this.parens.length < MAX_PARENS) this.parens.push(this.opensCondition());
        } else if (c === RPAREN) this.closedCondition = this.parens.pop() ?? false;
        else if (c === DOT && text.charCodeAt(i + 1) === DOT && text.charCodeAt(i + 2) === DOT) i += 2;
        else if (c === LT && this.firstTagLike < 0) {
          const d = text.charCodeAt(i + 1);
          if (d === SLASH || d === GT || isIdentStart(d)) this.firstTagLike = i;
        }
        i++;
        this.type = Tok.Punct;
      }
      this.end = this.pos = i;
      return;
    }
  }

  private scanString(i: number, quote: number): number {
    const text = this.text;
    const n = text.length;
    let j = i + 1;
    for (; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === quote) break;
      if (c === BACKSLASH) j++;
      else if (c === NL || c === CR) {
        // Unterminated: ends at the line break, as in TypeScript's scanner.
        this.doubtAt(i);
        this.type = Tok.String;
        this.substitutions = true; // not a usable specifier
        this.hasValue = false;
        return j;
      }
    }
    if (this.doubt < 0 && (j >= n || this.hasBacktick(i, j))) this.doubtAt(i);
    this.type = Tok.String;
    this.substitutions = false;
    this.value = text.slice(i + 1, j);
    this.hasValue = true;
    return Math.min(n, j + 1);
  }

  /** Scans template text from `i` to the closing backtick or the next `${`. */
  private scanTemplate(i: number, head: boolean): number {
    const text = this.text;
    const n = text.length;
    const before = head ? '' : (this.templateTexts.pop() ?? null);
    let j = i;
    for (; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === BACKTICK) {
        this.type = Tok.String;
        this.substitutions = !head;
        if (head) this.value = text.slice(i, j);
        this.hasValue = head;
        this.template = !head && before !== null && before.length + j - i <= MAX_TEMPLATE ? before + text.slice(i, j) : null;
        return j + 1;
      }
      if (c === BACKSLASH) j++;
      else if (c === DOLLAR && text.charCodeAt(j + 1) === LBRACE) {
        this.templateTexts.push(before !== null && before.length + j - i <= MAX_TEMPLATE ? `${before}${text.slice(i, j)}\${}` : null);
        this.templates.push(this.depth);
        this.type = Tok.String;
        this.substitutions = true;
        if (head) this.value = text.slice(i, j);
        this.hasValue = head;
        return j + 2;
      }
    }
    this.type = Tok.String;
    this.substitutions = true;
    this.hasValue = false;
    return n;
  }

  private scanRegex(i: number): number {
    const text = this.text;
    const n = text.length;
    let inClass = false;
    let closed = false;
    let j = i;
    for (; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === BACKSLASH && !isLineBreak(text.charCodeAt(j + 1))) j++;
      else if (isLineBreak(c)) break; // not a regex after all: recover at the line end
      else if (c === LBRACKET) inClass = true;
      else if (c === RBRACKET) inClass = false;
      else if (c === SLASH && !inClass) {
        closed = true;
        j++;
        while (j < n && isIdentPart(text.charCodeAt(j))) j++;
        break;
      }
    }
    if (this.doubt < 0 && (!closed || this.hasBacktick(i, j))) this.doubtAt(i - 1);
    this.type = Tok.Regex;
    return j;
  }
}

