/**
 * A minimal JavaScript/TypeScript lexer — strings, template literals (with nested `${}`),
 * comments, regular expressions (told from division by the previous token, as every JS tokenizer
 * outside a parser does), identifiers and punctuation — shared by the import scan
 * (`scan-imports.ts`) and the declaration scan (`scan-symbols.ts`). No AST, no allocation per token.
 *
 * Recovery follows TypeScript's scanner: a quoted string ends at a line break, so the apostrophe
 * in JSX text (`<p>don't</p>`) cannot swallow the rest of a file.
 */
export const enum Tok {
  EOF,
  Ident,
  String,
  Punct,
  Number,
  Regex,
}

// Character codes.
const NL = 10;
const CR = 13;
const SLASH = 47;
export const STAR = 42;
const BACKSLASH = 92;
const QUOTE = 39;
const DQUOTE = 34;
const BACKTICK = 96;
const DOLLAR = 36;
/** The longest template literal text kept whole (`Lexer.template`). */
const MAX_TEMPLATE = 300;
export const LBRACE = 123;
export const RBRACE = 125;
export const LPAREN = 40;
export const RPAREN = 41;
const LBRACKET = 91;
const RBRACKET = 93;
export const DOT = 46;
export const SEMI = 59;
export const EQUALS = 61;
export const COMMA = 44;

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

function isIdentStart(c: number): boolean {
  return c < 128 ? CLASS[c] === IDENT : c !== 0xa0 && c !== 0xfeff && c !== 0x2028 && c !== 0x2029;
}

function isIdentPart(c: number): boolean {
  return c < 128 ? (CLASS[c]! & (IDENT | DIGIT)) !== 0 : c !== 0xa0 && c !== 0xfeff && c !== 0x2028 && c !== 0x2029;
}

/** Keywords whose parenthesised condition a statement follows: a `/` after its `)` starts a regular expression. */
const CONDITION_KEYWORDS = new Set(['if', 'while', 'for', 'with']);
/** Open parentheses tracked (a file of a million `(` is not worth a million entries). */
const MAX_PARENS = 4096;

/** Keywords after which a `/` starts a regular expression rather than a division. */
const REGEX_AFTER = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

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

  /** Files named by triple-slash reference directives, in order. */
  readonly references: string[] = [];

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

  private regexAllowed(): boolean {
    switch (this.prevType) {
      case Tok.EOF:
        return true;
      case Tok.Ident:
        return this.prevEnd - this.prevStart <= 10 && REGEX_AFTER.has(this.text.slice(this.prevStart, this.prevEnd));
      case Tok.Punct:
        if (this.prevChar === RPAREN) return this.closedCondition;
        return this.prevChar !== RBRACKET && this.prevChar !== RBRACE;
      default:
        return false;
    }
  }

  next(): void {
    this.template = null;
    // Remember the previous significant token for the regex decision.
    if (this.type !== Tok.EOF || this.pos > 0) {
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
      if (c < 128 ? CLASS[c] === SPACE : c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029) {
        i++;
        continue;
      }
      if (c === SLASH) {
        const d = text.charCodeAt(i + 1);
        if (d === SLASH) {
          const start = i;
          i += 2;
          while (i < n && text.charCodeAt(i) !== NL && text.charCodeAt(i) !== CR) i++;
          // `/// <reference path="…" />` and `/// <reference types="./…" />` name files too.
          if (text.charCodeAt(start + 2) === SLASH) this.tripleSlash(text.slice(start, i));
          continue;
        }
        if (d === STAR) {
          const close = text.indexOf('*/', i + 2);
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
        if (c === LBRACE) this.depth++;
        else if (c === RBRACE) this.depth--;
        else if (c === LPAREN) {
          // Whether this `(` holds the condition of `if`/`while`/`for`/`with`: after its `)` a `/`
          // starts a regular expression (`if (s) /`/.test(s)`), not a division — read as one, the
          // regex's backtick opened a template literal that swallowed the imports after it.
          if (this.parens.length < MAX_PARENS) this.parens.push(this.prevType === Tok.Ident && this.prevEnd - this.prevStart <= 5 && CONDITION_KEYWORDS.has(this.text.slice(this.prevStart, this.prevEnd)));
        } else if (c === RPAREN) this.closedCondition = this.parens.pop() ?? false;
        else if (c === DOT && text.charCodeAt(i + 1) === DOT && text.charCodeAt(i + 2) === DOT) i += 2;
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
        this.type = Tok.String;
        this.substitutions = true; // not a usable specifier
        this.hasValue = false;
        return j;
      }
    }
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
    let j = i;
    for (; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === BACKSLASH) j++;
      else if (c === NL || c === CR) break; // not a regex after all: recover at the line end
      else if (c === LBRACKET) inClass = true;
      else if (c === RBRACKET) inClass = false;
      else if (c === SLASH && !inClass) {
        j++;
        while (j < n && isIdentPart(text.charCodeAt(j))) j++;
        break;
      }
    }
    this.type = Tok.Regex;
    return j;
  }
}

