/**
 * The plan as JSON, in pieces: together exactly `JSON.stringify(plan, null, 2)` and a line feed,
 * each piece ending with a line feed.
 *
 * NOTE: a plan of n issues that all conflict lists n²/2 conflicts (2,000 issues: 300 MB of
 * JSON). As one string, the text, its escaped copy and its bytes were all held at once, and past
 * about 2,700 such issues the text would not fit in a string at all (V8 stops at 2^29 characters).
 * Cutting only after a line feed keeps stdout's guards whole: JSON writes line feeds only between
 * values (in strings they are `\n`), so no token or control character spans two pieces.
 */
const indented = (text: string, pad: string) => text.replace(/\n/g, `\n${pad}`);

/** `pieceChars`: a piece ends at the first line feed past this many characters. */
export function* renderPlanJson(plan: object, pieceChars = 1 << 20): Generator<string> {
  // The members JSON.stringify writes (not undefined, functions or symbols); arrays come element by element.
  const members = Object.entries(plan).flatMap(([key, value]) => {
    if (Array.isArray(value)) return [{ key, value, text: '' }];
    const text = JSON.stringify(value, null, 2) as string | undefined;
    return text === undefined ? [] : [{ key, value, text }];
  });
  if (members.length === 0) {
    yield '{}\n';
    return;
  }
  let piece = '{\n';
  for (const [k, { key, value, text }] of members.entries()) {
    const comma = k < members.length - 1 ? ',' : '';
    if (!Array.isArray(value)) piece += `  ${JSON.stringify(key)}: ${indented(text, '  ')}${comma}\n`;
    else if (value.length === 0) piece += `  ${JSON.stringify(key)}: []${comma}\n`;
    else {
      piece += `  ${JSON.stringify(key)}: [\n`;
      for (let i = 0; i < value.length; i++) {
        piece += `    ${indented(JSON.stringify(value[i], null, 2) ?? 'null', '    ')}${i < value.length - 1 ? ',' : ''}\n`;
        if (piece.length >= pieceChars) {
          yield piece;
          piece = '';
        }
      }
      piece += `  ]${comma}\n`;
    }
    if (piece.length >= pieceChars) {
      yield piece;
      piece = '';
    }
  }
  yield `${piece}}\n`;
}
