/**
 * JSON text from a file or a pipe, parsed with an error that says *where* and never *what*.
 *
 * NOTE: V8's own message quotes the text (`Unexpected token 'r', "root:$6$…"... is not valid
 * JSON`), and gives no position for that kind of error at all; a file named by mistake
 * (`--from-issues /etc/shadow`) would then leak into a terminal or a CI log. So the text is
 * parsed by `JSON.parse`, and only when that fails is it scanned again, by the small RFC 8259
 * recogniser below, for the offset of the first character that cannot belong to a JSON text.
 * The recogniser keeps its own stack (no recursion): nesting depth cannot overflow it.
 */

export type JsonText = { ok: true; value: unknown } | { ok: false; line: number; column: number; endsEarly: boolean; message: string };

export function parseJsonText(text: string): JsonText {
  const body = text.replace(/^\uFEFF/, '');
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    const offset = firstJsonError(body);
    const endsEarly = offset >= body.length;
    const { line, column } = lineAndColumn(body, Math.min(offset, body.length));
    return { ok: false, line, column, endsEarly, message: `line ${line}, column ${column}${endsEarly ? ': the text ends early' : ''}` };
  }
}

/** 1-based line and column (in UTF-16 code units) of an offset; `\r\n`, `\n` and `\r` end lines. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** How far a token starting at an offset goes: its end, or the offset where it went wrong. */
type Scan = { ok: true; end: number } | { ok: false; at: number };

/**
 * The offset of the first character that no JSON text could have there (the text's length when
 * it ends early). For a valid text, its length too — the caller only asks after JSON.parse failed.
 */
export function firstJsonError(text: string): number {
  type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'end';
  const stack: ('array' | 'object')[] = [];
  let expect: Expect = 'value';
  let i = 0;
  const afterValue = (): Expect => (stack.length === 0 ? 'end' : 'comma-or-close');
  const close = () => {
    i++;
    stack.pop();
    expect = afterValue();
  };
  for (;;) {
    while (i < text.length && WHITESPACE.has(text.charCodeAt(i))) i++;
    if (i >= text.length) return text.length;
    const c = text[i]!;
    const top = stack[stack.length - 1];
    let scan: Scan;
    switch (expect) {
      case 'end':
        return i;
      case 'colon':
        if (c !== ':') return i;
        i++;
        expect = 'value';
        continue;
      case 'comma-or-close':
        if (c === ',') {
          i++;
          expect = top === 'array' ? 'value' : 'key';
        } else if ((top === 'array' && c === ']') || (top === 'object' && c === '}')) close();
        else return i;
        continue;
      case 'key-or-close':
      case 'key':
        if (expect === 'key-or-close' && c === '}') {
          close();
          continue;
        }
        if (c !== '"') return i;
        scan = scanString(text, i);
        if (!scan.ok) return scan.at;
        i = scan.end;
        expect = 'colon';
        continue;
      case 'value-or-close':
      case 'value':
        if (expect === 'value-or-close' && c === ']') {
          close();
          continue;
        }
        if (c === '[' || c === '{') {
          stack.push(c === '[' ? 'array' : 'object');
          i++;
          expect = c === '[' ? 'value-or-close' : 'key-or-close';
          continue;
        }
        scan = c === '"' ? scanString(text, i) : c === '-' || (c >= '0' && c <= '9') ? scanNumber(text, i) : scanLiteral(text, i);
        if (!scan.ok) return scan.at;
        i = scan.end;
        expect = afterValue();
        continue;
    }
  }
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` */
function scanNumber(text: string, at: number): Scan {
  let j = at;
  if (text[j] === '-') j++;
  if (text[j] === '0') j++;
  else if (isDigit(text[j])) while (isDigit(text[j])) j++;
  else return { ok: false, at: j };
  if (text[j] === '.') {
    j++;
    if (!isDigit(text[j])) return { ok: false, at: j };
    while (isDigit(text[j])) j++;
  }
  if (text[j] === 'e' || text[j] === 'E') {
    j++;
    if (text[j] === '+' || text[j] === '-') j++;
    if (!isDigit(text[j])) return { ok: false, at: j };
    while (isDigit(text[j])) j++;
  }
  return { ok: true, end: j };
}

function scanLiteral(text: string, at: number): Scan {
  const word = ['true', 'false', 'null'].find((w) => w[0] === text[at]);
  if (word === undefined) return { ok: false, at };
  for (let k = 1; k < word.length; k++) if (text[at + k] !== word[k]) return { ok: false, at: Math.min(at + k, text.length) };
  return { ok: true, end: at + word.length };
}

/** A string: no raw control characters, escapes `\" \\ \/ \b \f \n \r \t \uXXXX` only. */
function scanString(text: string, at: number): Scan {
  let j = at + 1;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return { ok: true, end: j + 1 };
    if (c < 0x20) return { ok: false, at: j };
    if (c !== 0x5c) {
      j++;
      continue;
    }
    const e = text[j + 1];
    if (e === 'u') {
      for (let k = 2; k < 6; k++) if (!/^[0-9a-fA-F]$/.test(text[j + k] ?? '')) return { ok: false, at: Math.min(j + k, text.length) };
      j += 6;
    } else if (e !== undefined && '"\\/bfnrt'.includes(e)) j += 2;
    else return { ok: false, at: Math.min(j + 1, text.length) };
  }
  return { ok: false, at: text.length };
}
