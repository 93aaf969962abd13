/**
 * Lists what a source file declares and the messages it holds: the names an issue can mention
 * (top-level functions, classes, consts, lets, vars, types, interfaces, enums, namespaces, and the
 * members of classes), and its string literals and template heads that read like messages.
 *
 * Algorithm: one forward pass of the shared lexer (`js-lexer.ts`) that looks at the token after a
 * declaring keyword at the top level (and at a member position inside a class body). No AST: the
 * budget is a fraction of the import scan on a cold build of a large monorepo. Re-exports
 * (`export { x } from './y'`) declare nothing here: the name belongs to the file it comes from.
 *
 * Bounded: at most `MAX_NAMES` names and `MAX_LITERALS` literals of `MIN_LITERAL`..`MAX_LITERAL`
 * characters (`MAX_LITERAL_CHARS` in all) a file, and its `MAX_CONTENT_WORDS` most frequent
 * words, so that the symbols cache stays small.
 */
import { contentWords } from './text-tokens.js';
import { BANG, COLON, EQUALS, LBRACE, LPAREN, LT, QUESTION, RBRACE, SEMI, STAR } from './char-codes.js';
import { Lexer, Tok } from './js-lexer.js';

export interface ScannedSymbols {
  /** Declared names, in source order, each once. */
  names: string[];
  /** String literals and template heads that look like messages, in source order, each once. */
  literals: string[];
  /** The words of the whole text (identifiers, comments, strings) with their counts, most frequent first (`contentWords`); null when not asked for. */
  words: [word: string, count: number][] | null;
}

export const MAX_NAMES = 200;
/** A longer identifier (generated, minified) is no name an issue mentions. */
export const MAX_NAME_LENGTH = 120;
export const MAX_LITERALS = 256;
/** And at most this many characters of them a file (a file of error messages holds hundreds). */
export const MAX_LITERAL_CHARS = 16_000;
export const MIN_LITERAL = 8;
export const MAX_LITERAL = 160;

const DECLARING = new Set(['function', 'class', 'interface', 'type', 'enum', 'const', 'let', 'var', 'namespace', 'abstract']);
const MODIFIERS = new Set(['static', 'public', 'private', 'protected', 'readonly', 'async', 'get', 'set', 'override', 'abstract', 'declare', 'accessor']);
const NOT_NAMES = new Set(['constructor', 'default', 'extends', 'implements', 'this', 'new', 'return', 'if', 'for', 'while', 'switch', 'await', 'yield']);
const SPECIFIER_BEFORE = new Set(['from', 'import', 'require']);


/** Whether a literal reads like a message or a key worth matching (letters, some length, one line). */
function keepLiteral(value: string): boolean {
  if (value.length < MIN_LITERAL || value.length > MAX_LITERAL) return false;
  let letters = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 10 || c === 13) return false;
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letters++;
  }
  return letters * 2 >= value.length;
}

export function scanSymbols(text: string, options: { words?: boolean } = {}): ScannedSymbols {
  const names = new Set<string>();
  const literals = new Set<string>();
  const spaced: string[] = [];
  let chars = 0;
  const plain: string[] = [];
  const lex = new Lexer(text);
  /** The declaring keyword just before, when the next identifier is a name. */
  let declaring: string | null = null;
  let prevPunct = -1;
  let prevWord: string | null = null;
  /** Depths of open class bodies, innermost last. */
  const classes: number[] = [];
  let classPending = false;
  /** A member name waiting for the token that confirms it (`(`, `=`, `:`…). */
  let member: string | null = null;
  /** A `type X` waiting for its `=` or `<`. */
  let typeName: string | null = null;
  lex.next();
  while (lex.type !== Tok.EOF) {
    const p = lex.punctCode();
    if (member !== null) {
      if (p === LPAREN || p === LT || p === EQUALS || p === COLON || p === QUESTION || p === BANG || p === SEMI) names.add(member);
      member = null;
    }
    if (typeName !== null) {
      if (p === EQUALS || p === LT) names.add(typeName);
      typeName = null;
    }
    if (lex.type === Tok.Ident) {
      const afterDot = prevPunct === 46;
      // Slice the identifier only where it can matter: every keyword and modifier is 3 to 9 characters long.
      const length = lex.end - lex.start;
      const keywordSized = length >= 3 && length <= 9;
      const inClassBody = classes.length > 0 && lex.depth === classes[classes.length - 1] && !afterDot;
      const word: string = keywordSized || inClassBody || (declaring !== null && !afterDot) ? lex.ident() : '';
      if (declaring !== null && !afterDot) {
        if (DECLARING.has(word)) {
          declaring = word; // `abstract class`, `const enum`, `declare const`
          if (word === 'class') classPending = true;
        } else {
          if (declaring === 'type') typeName = word;
          else if (declaring !== 'abstract' && !NOT_NAMES.has(word) && names.size < MAX_NAMES) names.add(word);
          declaring = null;
        }
      } else if (!afterDot && keywordSized && DECLARING.has(word) && (lex.depth === 0 || word === 'class')) {
        declaring = word;
        if (word === 'class') classPending = true;
      } else if (inClassBody) {
        if (!MODIFIERS.has(word) && !NOT_NAMES.has(word) && (prevPunct === LBRACE || prevPunct === RBRACE || prevPunct === SEMI || (prevWord !== null && MODIFIERS.has(prevWord))) && names.size < MAX_NAMES) {
          member = word;
        }
      }
      prevWord = keywordSized ? word : null;
      prevPunct = -1;
    } else {
      if (declaring !== null && !(declaring === 'function' && p === STAR)) declaring = null;
      if (p === LBRACE && classPending) {
        classes.push(lex.depth);
        classPending = false;
      } else if (p === RBRACE) {
        while (classes.length > 0 && lex.depth < classes[classes.length - 1]!) classes.pop();
      } else if (p === SEMI) classPending = false;
      if (lex.type === Tok.String && lex.hasValue && !(prevWord !== null && prevPunct === -1 && SPECIFIER_BEFORE.has(prevWord)) && !(prevPunct === LPAREN && prevWord !== null && SPECIFIER_BEFORE.has(prevWord))) {
        const value = lex.value;
        if (spaced.length < MAX_LITERALS && chars + value.length <= MAX_LITERAL_CHARS && keepLiteral(value) && !literals.has(value)) {
          literals.add(value);
          chars += value.length;
          (value.includes(' ') ? spaced : plain).push(value);
        }
      }
      // A whole template literal with its holes (`Port ${} is already in use`): a message as it is printed.
      if (lex.type === Tok.String && lex.template !== null) {
        const value = lex.template;
        if (spaced.length < MAX_LITERALS && chars + value.length <= MAX_LITERAL_CHARS && value.includes(' ') && keepLiteral(value) && !literals.has(value)) {
          literals.add(value);
          chars += value.length;
          spaced.push(value);
        }
      }
      if (lex.type === Tok.Punct) prevPunct = p;
      else prevPunct = -2;
      if (lex.type !== Tok.Punct || p !== LPAREN) prevWord = lex.type === Tok.Punct ? null : prevWord;
    }
    lex.next();
  }
  return { names: [...names].filter((name) => name.length <= MAX_NAME_LENGTH).slice(0, MAX_NAMES), literals: [...spaced, ...plain].slice(0, MAX_LITERALS), words: options.words === false ? null : contentWords(text) };
}
