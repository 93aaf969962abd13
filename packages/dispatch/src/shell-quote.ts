/**
 * A command line for POSIX shells that runs exactly this argv when pasted. An argument made only
 * of characters no shell interprets stays bare; any other is put in single quotes, inside which
 * a POSIX shell interprets nothing (a quote itself is written '\''). So `$( )`, backticks, `;`,
 * globs, `~`, `#` and line breaks in issue text are data, never code.
 *
 * Control characters are the exception: inside quotes they are still data to the shell, but a
 * terminal acts on them when the line is shown (ESC starts colours, OSC titles and hyperlinks, CR
 * rewrites the line, bidirectional marks reorder what a reader sees). They never appear raw:
 * each run of them is written `"$(printf '\ooo…')"`, their UTF-8 bytes in octal, joined to the
 * quoted pieces around it — still one word, the same bytes. A line break stays raw inside its
 * quotes (printf's output would lose a trailing one to the command substitution).
 *
 * NOTE: the shell-quote package gives equally correct output for plain text, but escapes
 * characters such as `@` `=` `,` outside quotes (`\@scope/pkg`, `--x\=\$\(id\)`), which makes
 * previews and prompts harder to read, and leaves control characters raw; this is Python's
 * shlex.quote plus the printf pieces, checked against a real sh by the tests.
 */
import { INVISIBLE_CLASS } from '@waves/planner';

const SAFE = /^[\w@%+=:,./-]+$/;

/**
 * What must never reach a terminal raw: every invisible character (INVISIBLE_CLASS: controls, the
 * bidirectional marks, zero-width characters, tag characters…) but the line feed. The same set the
 * output's last escaping turns into `\uXXXX` text — which, inside single quotes, would paste as
 * those six characters, not the one the argv holds (red team L7): so each is a printf piece here.
 */
export const CONTROL_CHARACTERS = new RegExp(`(?!\\n)${INVISIBLE_CLASS}`, 'u');
const CONTROL_RUNS = new RegExp(`(?:(?!\\n)${INVISIBLE_CLASS})+`, 'gu');

function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function printfPiece(controls: string): string {
  const octal = [...Buffer.from(controls, 'utf8')].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');
  return `"$(printf '${octal}')"`;
}

export function quoteArg(arg: string): string {
  if (arg !== '' && SAFE.test(arg)) return arg;
  if (!CONTROL_CHARACTERS.test(arg)) return singleQuoted(arg);
  const pieces: string[] = [];
  let last = 0;
  for (const match of arg.matchAll(CONTROL_RUNS)) {
    if (match.index > last) pieces.push(singleQuoted(arg.slice(last, match.index)));
    pieces.push(printfPiece(match[0]));
    last = match.index + match[0].length;
  }
  if (last < arg.length) pieces.push(singleQuoted(arg.slice(last)));
  return pieces.join('');
}

export function shellQuote(argv: readonly string[]): string {
  return argv.map(quoteArg).join(' ');
}
