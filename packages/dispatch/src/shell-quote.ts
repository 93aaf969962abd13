/**
 * A command line for POSIX shells that runs exactly this argv when pasted. An argument made only
 * of characters no shell interprets stays bare; any other is put in single quotes, inside which
 * a POSIX shell interprets nothing (a quote itself is written '\''). So `$( )`, backticks, `;`,
 * globs, `~`, `#` and line breaks in issue text are data, never code.
 *
 * NOTE: the shell-quote package gives equally correct output, but escapes characters such as
 * `@` `=` `,` outside quotes (`\@scope/pkg`, `--x\=\$\(id\)`), which makes previews and prompts
 * harder to read; this is Python's shlex.quote, checked against a real sh by the tests.
 */
const SAFE = /^[\w@%+=:,./-]+$/;

export function quoteArg(arg: string): string {
  if (arg !== '' && SAFE.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function shellQuote(argv: readonly string[]): string {
  return argv.map(quoteArg).join(' ');
}
