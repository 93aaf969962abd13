/**
 * The tables the template rule (template-rule.ts) reads, in one place: which programs run their
 * arguments as code, through which flags, and which flags no agent may declare as taking a value.
 * Each entry is here because a template with issue text in that place ran code in a test or a
 * red-team attempt, or because the tool documents its arguments as code. Adding a program here
 * only ever refuses more templates.
 */

export interface Interpreter {
  /** Flags whose value (or, for a shell, the first operand after it) is code; matched whole or before `=`. */
  long: readonly string[];
  /** Single letters that are code flags alone or in a cluster (`-c`, `-lc`, `-ne`). */
  letters: string;
  /** A shell: operands after its code string are positional parameters ($0, $1…), which are data. */
  shell?: boolean;
  /**
   * Subcommands after which every argument is a command line run through a shell (`git submodule
   * foreach`, `git bisect run`): each a sequence of words that appear, in this order, as whole
   * elements after the program.
   */
  codeAfter?: readonly (readonly string[])[];
}

const SHELL: Interpreter = { long: ['--command'], letters: 'c', shell: true };

/**
 * Programs with code flags: issue text at or after such a flag — anywhere in the argv after the
 * program, so also behind wrappers (`env`, `nice`, `timeout`, `xargs`, `sudo`…) — is refused.
 */
export const INTERPRETERS: Readonly<Record<string, Interpreter>> = {
  // Shells
  sh: SHELL, bash: SHELL, zsh: SHELL, dash: SHELL, ksh: SHELL, mksh: SHELL, ash: SHELL, yash: SHELL, csh: SHELL, tcsh: SHELL,
  oksh: SHELL, loksh: SHELL, posh: SHELL, rc: SHELL, es: SHELL, xonsh: SHELL, elvish: SHELL,
  nu: { long: ['--commands', '--execute'], letters: 'ce', shell: true },
  fish: { long: ['--command', '--init-command'], letters: 'cC', shell: true },
  // Language runtimes
  node: { long: ['--eval', '--print'], letters: 'ep' },
  nodejs: { long: ['--eval', '--print'], letters: 'ep' },
  deno: { long: ['eval', '--eval', '--print'], letters: 'ep' },
  bun: { long: ['--eval', '--print'], letters: 'ep' },
  tsx: { long: ['--eval', '--print'], letters: 'ep' },
  'ts-node': { long: ['--eval', '--print'], letters: 'ep' },
  python: { long: [], letters: 'cm' },
  pypy: { long: [], letters: 'cm' },
  perl: { long: [], letters: 'eE' },
  ruby: { long: [], letters: 'e' },
  php: { long: [], letters: 'r' },
  lua: { long: [], letters: 'e' },
  luajit: { long: [], letters: 'e' },
  r: { long: [], letters: 'e' },
  rscript: { long: [], letters: 'e' },
  julia: { long: ['--eval', '--print'], letters: 'eE' },
  elixir: { long: ['--eval'], letters: 'e' },
  erl: { long: ['-eval'], letters: '' },
  osascript: { long: [], letters: 'e' },
  groovy: { long: [], letters: 'e' },
  scala: { long: [], letters: 'e' },
  guile: { long: [], letters: 'ce' },
  racket: { long: ['--eval', '--require-script'], letters: 'e' },
  sbcl: { long: ['--eval'], letters: '' },
  bb: { long: ['--eval'], letters: 'e' },
  // Wrappers and tools with a flag that runs a command line or evaluates code
  env: { long: ['--split-string'], letters: 'S' },
  // Plain `sudo tool …` / `doas tool …` exec the tool directly: its arguments stay data for it.
  // `-s`/`-i` run a shell with the command line; `-e` (sudoedit) opens an editor on the names.
  sudo: { long: ['--shell', '--login', '--edit'], letters: 'sie' },
  doas: { long: [], letters: 's' },
  flock: { long: ['--command'], letters: 'c' },
  // entr execs its command directly, except with -s (through $SHELL).
  entr: { long: [], letters: 's' },
  make: { long: ['--eval'], letters: 'E' },
  gmake: { long: ['--eval'], letters: 'E' },
  // git: config (`-c alias.x=!cmd`), the programs it is told to run (`rebase -x`, `difftool
  // --extcmd`, `fetch --upload-pack`, `push --receive-pack`, `archive --exec`, filter-branch's
  // filters, `--exec-path`), and subcommands that run a shell command line.
  git: {
    long: ['--config-env', '--exec', '--extcmd', '--upload-pack', '--receive-pack', '--exec-path', '--tree-filter', '--index-filter', '--msg-filter', '--env-filter', '--commit-filter', '--parent-filter', '--tag-name-filter', '-u'],
    letters: 'cx',
    codeAfter: [['submodule', 'foreach'], ['bisect', 'run']],
  },
  npx: { long: ['--call'], letters: 'c' },
  npm: { long: ['--call'], letters: 'c' },
  pnpm: { long: ['--shell-mode'], letters: 'c' },
  'nix-shell': { long: ['--run', '--command'], letters: '' },
  nix: { long: ['--command'], letters: 'c' },
  psql: { long: ['--command'], letters: 'c' },
  mysql: { long: ['--execute'], letters: 'e' },
  gdb: { long: ['-ex', '-iex', '--eval-command', '--init-eval-command'], letters: '' },
  lldb: { long: ['--one-line', '--source'], letters: 'os' },
};

/**
 * Programs that hand their arguments to a shell, or may read any of them as code (an editor's
 * `+cmd`, a terminal multiplexer's command line, a remote shell, a stream editor's script): no
 * issue text anywhere after them.
 */
export const CODE_EVERYWHERE: ReadonlySet<string> = new Set([
  'pwsh', 'powershell', 'cmd', 'eval',
  'awk', 'gawk', 'mawk', 'nawk', 'busybox', 'toybox', 'sed', 'gsed', 'm4', 'perl6', 'raku',
  // Run their command through a shell (sg: `/bin/sh -c`), start one, or take a command line.
  'sg', 'newgrp', 'su', 'runuser', 'sudoedit', 'machinectl', 'firejail',
  'watch', 'script', 'parallel', 'at', 'batch', 'unbuffer',
  // Remote shells: the command line is run by the shell at the other end.
  'ssh', 'mosh', 'autossh', 'rsh', 'rlogin', 'slogin', 'pdsh', 'dsh', 'clush',
  // Terminal multiplexers and emulators: a command line, or a command run through a shell.
  'tmux', 'screen', 'byobu', 'zellij',
  'xterm', 'uxterm', 'x-terminal-emulator', 'gnome-terminal', 'konsole', 'xfce4-terminal', 'terminator', 'urxvt', 'rxvt', 'kitty', 'alacritty', 'wezterm',
  'vim', 'nvim', 'vi', 'ex', 'view', 'gvim', 'emacs', 'emacsclient',
  'sqlite3', 'expect', 'tclsh', 'wish',
]);

/**
 * Flags that run code in so many tools that no agent may declare one in `valueFlags` (an agent's
 * own flag that takes code is no place for issue text), besides the code flags of every program
 * of the template in the tables above. A flag starting with `+` (vim's `+cmd`) never takes a value
 * either.
 */
export const CODE_FLAGS: ReadonlySet<string> = new Set([
  '-c', '-e', '-E', '-r', '-x', '-S', '--eval', '--exec', '--execute', '--command', '--call', '--run', '--cmd', '--shell', '--script', '--init-command',
]);

/**
 * The names a program may be known by in the tables: its file name (`m4`, `sqlite3`, `perl6`) and
 * that name without a version (`/usr/bin/python3.12` → `python`, `ksh93` → `ksh`), lower case,
 * without `.exe` (`C:\\Windows\\cmd.exe` → `cmd`).
 */
export function programNames(element: string): string[] {
  const base = (element.split(/[\\/]/).pop() ?? '').toLowerCase().replace(/\.exe$/, '');
  const bare = base.replace(/[\d.]+$/, '');
  return bare === base || bare === '' ? [base] : [base, bare];
}

/** Whether `element` (a whole argv element, or its part before `=`) is a code flag of `interpreter`. */
export function isCodeFlag(element: string, interpreter: Interpreter): boolean {
  const name = element.split('=')[0]!;
  if (interpreter.long.includes(name)) return true;
  return /^-[A-Za-z]+$/.test(name) && [...interpreter.letters].some((letter) => name.slice(1).includes(letter));
}

/** The program of the tables an argv element names, if any: its name there, and whether it runs everything as code. */
export function knownProgram(element: string): { name: string; everywhere: true } | { name: string; everywhere: false; interpreter: Interpreter } | null {
  const names = programNames(element);
  const everywhere = names.find((name) => CODE_EVERYWHERE.has(name));
  if (everywhere) return { name: everywhere, everywhere: true };
  for (const name of names) if (Object.hasOwn(INTERPRETERS, name)) return { name, everywhere: false, interpreter: INTERPRETERS[name]! };
  return null;
}
