/**
 * Reads the evidence an issue's text holds about where the change goes — as a maintainer reads a
 * report: stack frames and paths in logs, identifiers (in code spans, code blocks, or camelCase /
 * PascalCase / snake_case words of prose), quoted messages and log lines, the conventional-commit
 * scope of the title, and the plain words.
 *
 * The text is untrusted: the work is bounded (the first `MAX_BODY` characters and `MAX_LINES`
 * lines of the body, lines cut to `MAX_LINE`, at most so many signals of each kind), every scan is
 * a linear pass over characters (no regular expression that can backtrack over a long line), and
 * nothing here is ever read from disk: paths are only matched against the repository's file list.
 */
import { isStopWord } from '../graph/text-tokens.js';

export interface Where {
  field: 'title' | 'body';
  /** 1-based line of the body. */
  line?: number;
}

export interface PathSignal {
  /** As written (cut). */
  text: string;
  where: Where;
  /** A stack frame (`at …`, `:line:col`) or a path. */
  kind: 'frame' | 'path';
  /** Its segments after the prefixes (`file://`, `webpack:///`, a drive) are taken off; no `.`, `..` or empty segment. */
  segments: string[];
  /** For a path inside node_modules: the package it names (`@scope/name` or `name`), and the segments after it. */
  nodeModule: string | null;
}

export interface NameSignal {
  text: string;
  where: Where;
  /** Written as code (a code span or block), not a word of prose. */
  code: boolean;
}

/** A package name written as code (`is-wsl`, `@astrojs/upgrade`) or in the title scope. */
export interface PackageSignal {
  text: string;
  where: Where;
}

export interface MessageSignal {
  text: string;
  where: Where;
}

export interface IssueSignals {
  paths: PathSignal[];
  names: NameSignal[];
  packages: PackageSignal[];
  messages: MessageSignal[];
  /** Conventional-commit scopes of the title (`fix(css,theme): …` → css, theme). */
  scopes: string[];
  /** The title without its conventional-commit prefix. */
  titleText: string;
  /** The prose of the body that words are matched from (bounded). */
  bodyText: string;
}

export const MAX_BODY = 20_000;
export const MAX_LINES = 400;
export const MAX_LINE = 1000;
const MAX_PATHS = 40;
const MAX_NAMES = 80;
const MAX_MESSAGES = 20;
const MAX_TOKEN = 300;
const MAX_SHOWN = 120;

/** An npm package name: `name`, `@scope/name`, lower-case letters, digits, `-`, `.`, `_`. */
const PACKAGE_NAME = /^(?:@[a-z0-9][\w.-]{0,60}\/)?[a-z0-9][\w.-]{0,80}$/;

/** A kebab-case name: letters and digits in two or more parts joined by single dashes. */
const KEBAB = /^[A-Za-z][A-Za-z0-9]{0,40}(?:-[A-Za-z0-9]{1,40}){1,8}$/;

const CODE_EXTENSIONS = new Set(['ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs', 'mts', 'cts', 'vue', 'svelte', 'astro', 'json', 'css', 'scss', 'less', 'html', 'md', 'mdx', 'yaml', 'yml', 'graphql', 'sql']);
const KEYWORDS = new Set(
  'const let var function class return import export from default new this true false null undefined void typeof instanceof async await if else for while switch case break continue throw try catch finally extends implements interface type enum public private protected static readonly string number boolean any unknown never object symbol bigint of in as is keyof infer satisfies declare module namespace require'.split(' '),
);

/** Cuts text for showing as evidence. */
export function shown(text: string): string {
  const cut = text.length > MAX_SHOWN * 2 ? text.slice(0, MAX_SHOWN * 2) : text;
  const clean = (/[\u0000-\u001f\u007f]/.test(cut) ? cut.replace(/[\u0000-\u001f\u007f]/g, ' ') : cut).trim();
  return clean.length > MAX_SHOWN ? `${clean.slice(0, MAX_SHOWN - 1)}…` : clean;
}

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}

/** Whether a prose word is written like code: camelCase, PascalCase with two humps, snake_case. */
function looksLikeCode(word: string): boolean {
  let upperAfterLower = false;
  let lower = false;
  let underscoreInside = false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 97 && c <= 122) lower = true;
    else if (c >= 65 && c <= 90 && lower) upperAfterLower = true;
    else if (c === 95 && i > 0 && i < word.length - 1) underscoreInside = true;
  }
  return upperAfterLower || (underscoreInside && lower);
}

/** Identifiers in a piece of text: every one when it is code, else those written like code. */
function namesIn(text: string, where: Where, code: boolean, out: NameSignal[], seen: Set<string>): void {
  const n = Math.min(text.length, MAX_LINE);
  let i = 0;
  while (i < n && out.length < MAX_NAMES) {
    const c = text.charCodeAt(i);
    if (!isIdentStart(c)) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && isIdentPart(text.charCodeAt(i))) i++;
    // A word inside a path or a URL is not a name of its own (the path is evidence of its own).
    const before = start > 0 ? text.charCodeAt(start - 1) : 32;
    const after = i < n ? text.charCodeAt(i) : 32;
    if (!code && (before === 47 || after === 47 || before === 92 || (after === 46 && i + 1 < n && isIdentStart(text.charCodeAt(i + 1)) && !code))) continue;
    const word = text.slice(start, i);
    if (word.length < 3 || word.length > 80 || KEYWORDS.has(word) || (!code && !looksLikeCode(word)) || (code && isStopWord(word))) continue;
    if (seen.has(word)) continue;
    seen.add(word);
    out.push({ text: word, where, code });
  }
}

/** kebab-case words of prose (`no-unused-vars`, `[prefer-optional-chain]`): file names more often than not. */
function kebabNamesIn(text: string, where: Where, out: NameSignal[], seen: Set<string>): void {
  const n = Math.min(text.length, MAX_LINE);
  let i = 0;
  while (i < n && out.length < MAX_NAMES) {
    const c = text.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90))) {
      i++;
      continue;
    }
    const start = i;
    let dashes = 0;
    while (i < n) {
      const d = text.charCodeAt(i);
      if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || (d >= 48 && d <= 57)) i++;
      else if (d === 45 && i + 1 < n && /[a-z0-9]/i.test(text[i + 1]!) && text.charCodeAt(i - 1) !== 45) {
        dashes++;
        i++;
      } else break;
    }
    const before = start > 0 ? text.charCodeAt(start - 1) : 32;
    const after = i < n ? text.charCodeAt(i) : 32;
    if (dashes === 0 || before === 47 || after === 47 || before === 64 || i - start > 80) continue;
    const word = text.slice(start, i);
    if (seen.has(word)) continue;
    seen.add(word);
    // `[no-unused-vars]`: a bracketed kebab-case name is written as a name (a rule, a file), not prose.
    out.push({ text: word, where, code: before === 91 && after === 93 });
  }
}

/** Splits a line into tokens at whitespace, quotes and brackets (for paths and frames). */
function pathTokens(line: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= line.length; i++) {
    const c = i < line.length ? line.charCodeAt(i) : 32;
    const sep = c <= 32 || c === 34 || c === 39 || c === 96 || c === 40 || c === 41 || c === 60 || c === 62 || c === 44 || c === 59 || c === 91 || c === 93 || c === 123 || c === 125 || c === 124;
    if (sep) {
      if (start >= 0 && i - start <= MAX_TOKEN) out.push(line.slice(start, i));
      start = -1;
    } else if (start < 0) start = i;
  }
  return out;
}

/** A path or frame from one token, or null. */
function pathSignal(token: string, where: Where, frameLine: boolean): PathSignal | null {
  let t = token;
  let kind: 'frame' | 'path' = frameLine ? 'frame' : 'path';
  // Prefixes: file:///, webpack:///./, webpack-internal:///, vite's /@fs/, a drive letter.
  const scheme = /^(?:file|webpack|webpack-internal|vite|rollup|node):\/*(?:\.\/)?/i.exec(t);
  if (scheme) {
    kind = 'frame';
    t = t.slice(scheme[0].length);
  }
  t = t.replace(/\\/g, '/');
  if (/^[A-Za-z]:\//.test(t)) t = t.slice(3);
  // `:12:5`, `:12`, `#L12`, `?query` at the end.
  const cut = t.search(/[?#]/);
  if (cut >= 0) t = t.slice(0, cut);
  let j = t.length;
  let colons = 0;
  while (colons < 2) {
    let k = j;
    while (k > 0 && t.charCodeAt(k - 1) >= 48 && t.charCodeAt(k - 1) <= 57) k--;
    if (k === j || k === 0 || t.charCodeAt(k - 1) !== 58) break;
    j = k - 1;
    colons++;
  }
  if (colons > 0) kind = 'frame';
  t = t.slice(0, j).replace(/[.:]+$/, '');
  const dot = t.lastIndexOf('.');
  const ext = dot < 0 ? '' : t.slice(dot + 1).toLowerCase();
  if (!CODE_EXTENSIONS.has(ext)) return null;
  const raw = t.split('/');
  const segments = raw.filter((s) => s !== '' && s !== '.' && s !== '..' && s !== '~' && !s.includes('\0'));
  // A bare file name (`theme.ts`) is a path of one segment; `a.b` prose is no path at all.
  if (segments.length === 0 || (segments.length === 1 && !/^[\w@$.-]+\.[a-z]{1,6}$/i.test(segments[0]!))) return null;
  if (segments.length === 1 && !frameLine && colons === 0 && !/[A-Za-z]/.test(segments[0]!.slice(0, dot))) return null;
  let nodeModule: string | null = null;
  const nm = segments.lastIndexOf('node_modules');
  if (nm >= 0) {
    const first = segments[nm + 1];
    if (first === undefined) return null;
    nodeModule = first.startsWith('@') && segments[nm + 2] !== undefined ? `${first}/${segments[nm + 2]}` : first;
    segments.splice(0, nm + 1 + nodeModule.split('/').length);
  }
  return { text: shown(token), where, kind, segments, nodeModule };
}

/** Conventional-commit types (and other prefixes that say what a change is, not where): never read as a scope. */
const COMMIT_TYPES = new Set(
  'fix fixes fixed feat feature chore docs doc refactor perf test tests build ci style revert release wip deps dep bug bugfix hotfix breaking improvement enhancement types typo security cleanup misc update upgrade merge note todo question help warning error'.split(
    ' ',
  ),
);

/** A scope word: letters, digits, `-`, `_`, `.`, `/`, `@` (a package, a folder, a file's name). */
function scopeWords(text: string): string[] {
  return text
    .split(/[,|\s]+/)
    .flatMap((s) => (s.startsWith('@') ? [s] : s.split('/')))
    .map((s) => s.trim())
    .filter((s) => s.length > 0 && s.length <= 60 && s !== '*' && /^[@\w.$/-]+$/.test(s));
}

/**
 * The prefix of a title that says where the change goes, and the title without it: the
 * conventional-commit scope (`fix(css,theme)!: …` → css, theme), a bracketed tag (`[worker] …`),
 * or a bare area before a colon (`css: …`, `worker: …` — not a commit type such as `fix:`).
 * A linear scan of the first 120 characters, not a regular expression over the whole title.
 */
export function conventionalPrefix(title: string): { scopes: string[]; rest: string } {
  const n = Math.min(title.length, 120);
  let i = 0;
  while (i < n && title.charCodeAt(i) === 32) i++;
  const scopes: string[] = [];
  // `[worker] …` (also before a conventional prefix: `[ci] fix: …`).
  if (title[i] === '[') {
    const close = title.indexOf(']', i);
    if (close > i + 1 && close - i <= 40) {
      const tagged = scopeWords(title.slice(i + 1, close)).filter((s) => !COMMIT_TYPES.has(s.toLowerCase()));
      scopes.push(...tagged);
      i = close + 1;
      while (i < n && title.charCodeAt(i) === 32) i++;
    }
  }
  const typeStart = i;
  while (i < n && /[\w.@/-]/.test(title[i]!)) i++;
  const word = title.slice(typeStart, i);
  const rest = (from: number) => ({ scopes, rest: title.slice(from).trim() });
  if (word.length === 0 || word.length > 30) return rest(typeStart);
  let j = i;
  if (title[j] === '(') {
    const close = title.indexOf(')', j);
    if (close < 0 || close - j > 60 || !/^[A-Za-z]+$/.test(word)) return rest(typeStart);
    const inside = scopeWords(title.slice(j + 1, close));
    j = close + 1;
    if (title[j] === '!') j++;
    if (title[j] !== ':') return rest(typeStart);
    scopes.push(...inside);
    return rest(j + 1);
  }
  if (title[j] === '!') j++;
  if (title[j] !== ':') return rest(typeStart);
  // `fix: …` names no place; `css: …` or `worker: …` does (a colon then a space: not a URL or `a:b`).
  if (title[j + 1] !== ' ' && j + 1 < title.length) return rest(typeStart);
  if (!COMMIT_TYPES.has(word.toLowerCase()) && /^[A-Za-z@]/.test(word) && !/(?:Error|Exception|Warning)$/.test(word)) scopes.push(...scopeWords(word));
  return rest(j + 1);
}

/** Quoted text of a prose line: "…", '…' (not an apostrophe inside a word), “…”. */
function quotedIn(line: string, where: Where, out: MessageSignal[]): void {
  const n = line.length;
  for (let i = 0; i < n && out.length < MAX_MESSAGES; i++) {
    const c = line[i]!;
    const close = c === '"' ? '"' : c === '“' ? '”' : c === "'" && (i === 0 || !/\w/.test(line[i - 1]!)) ? "'" : null;
    if (close === null) continue;
    const end = line.indexOf(close, i + 1);
    if (end < 0) break;
    const text = line.slice(i + 1, end);
    if (text.length >= 8 && text.length <= 300 && /[A-Za-z]{3}/.test(text)) out.push({ text, where });
    i = end;
  }
}

/** Error lines of a log: `TypeError: …`, `Error: …`, `[plugin] …`. */
function errorMessageIn(line: string): string | null {
  const m = /(?:^|\s)(?:[A-Z]\w{0,30})?(?:Error|Exception|Warning|error|warning)(?:\s*\[[^\]]{0,40}\])?:\s+(.{8,300})$/.exec(line.slice(0, 400));
  return m ? m[1]!.trim() : null;
}

export function readIssueSignals(title: string, body: string): IssueSignals {
  const paths: PathSignal[] = [];
  const names: NameSignal[] = [];
  const packages: PackageSignal[] = [];
  const messages: MessageSignal[] = [];
  const seenNames = new Set<string>();
  const seenPaths = new Set<string>();
  const { scopes, rest } = conventionalPrefix(title);
  const prose: string[] = [];

  const scanLine = (line: string, where: Where, inBlock: boolean) => {
    const frameLine = /^\s*at\s/.test(line) || inBlock;
    for (const token of pathTokens(line)) {
      if (paths.length >= MAX_PATHS) break;
      if (!token.includes('.')) continue;
      const signal = pathSignal(token, where, frameLine && /^\s*at\s/.test(line));
      if (!signal) continue;
      const key = `${signal.nodeModule ?? ''}|${signal.segments.join('/')}`;
      if (seenPaths.has(key)) continue;
      seenPaths.add(key);
      paths.push(signal);
    }
    if (inBlock) {
      namesIn(line, where, true, names, seenNames);
      const error = errorMessageIn(line);
      if (error && messages.length < MAX_MESSAGES) messages.push({ text: error, where });
      return;
    }
    // Code spans: names (every one) and messages (spans with spaces).
    let plain = '';
    let i = 0;
    while (i < line.length) {
      const open = line.indexOf('`', i);
      if (open < 0) {
        plain += line.slice(i);
        break;
      }
      plain += `${line.slice(i, open)} `;
      let ticks = 1;
      while (line[open + ticks] === '`') ticks++;
      const fence = '`'.repeat(ticks);
      const close = line.indexOf(fence, open + ticks);
      if (close < 0) {
        plain += line.slice(open + ticks);
        break;
      }
      const span = line.slice(open + ticks, close).trim();
      namesIn(span, where, true, names, seenNames);
      // A kebab-case span (`no-unnecessary-condition`): a file or rule name written as code.
      if (KEBAB.test(span) && names.length < MAX_NAMES && !seenNames.has(span)) {
        seenNames.add(span);
        names.push({ text: span, where, code: true });
      }
      if (PACKAGE_NAME.test(span) && packages.length < MAX_NAMES && !packages.some((p) => p.text === span)) packages.push({ text: span, where });
      if (span.includes(' ') && span.length >= 8 && messages.length < MAX_MESSAGES) messages.push({ text: span, where });
      i = close + ticks;
    }
    namesIn(plain, where, false, names, seenNames);
    kebabNamesIn(plain, where, names, seenNames);
    quotedIn(line, where, messages); // a quoted message may hold code spans: `sharp`
    const error = errorMessageIn(plain);
    if (error && messages.length < MAX_MESSAGES && !messages.some((m) => m.text === error)) messages.push({ text: error, where });
    prose.push(plain);
  };

  scanLine(title.slice(0, MAX_LINE), { field: 'title' }, false);
  const lines = body.slice(0, MAX_BODY).split('\n', MAX_LINES);
  let inBlock = false;
  lines.forEach((raw, index) => {
    const line = raw.slice(0, MAX_LINE).replace(/\r$/, '');
    if (/^\s*(?:```|~~~)/.test(line)) {
      inBlock = !inBlock;
      return;
    }
    scanLine(line, { field: 'body', line: index + 1 }, inBlock);
  });
  prose.shift(); // the title's prose is `rest`
  for (const scope of scopes) if (scope.startsWith('@') && PACKAGE_NAME.test(scope)) packages.push({ text: scope, where: { field: 'title' } });
  return { paths, names, packages, messages, scopes, titleText: rest, bodyText: prose.join('\n') };
}
