/**
 * The rule an agent's argv template must follow before any issue text goes into it. Issue text
 * (the untrusted placeholders: title, prompt, lane, paths, branch) is data, never code and never a
 * flag:
 *
 * 1. Never code. No untrusted placeholder, anywhere in an element, may stand at or after a code
 *    flag of a known interpreter appearing earlier in the argv (so also behind `env`, `nice`,
 *    `timeout`, `xargs`, `sudo`…): `sh -c`, `bash -lc`, `node -e/--eval/-p/--print`, `python -c/-m`,
 *    `perl -e/-E`, `ruby -e`, `php -r`, `osascript -e`, `env -S`, `su -c`… — except, for a shell,
 *    the positional parameters after the code string (`sh -c 'tool "$1"' sh {title}`, the safe
 *    idiom). After `pwsh`, `powershell`, `cmd`, `awk`, `sed`, `watch`, `ssh` or `eval` every
 *    operand may be code: no untrusted placeholder at all.
 * 2. Never a flag. An element that starts with issue text must follow a flag known to take a
 *    value (the presets' `--title` and `--model`, `VALUE_FLAGS`, or the agent's own `valueFlags`),
 *    or come after `--`; `{prompt}` alone may stand as a positional, since the prompt starts with
 *    waves' own text. Glued to a flag, issue text is a value only in `--name={title}` (the `=`
 *    ends the flag's name) or after a short flag marked as taking a value (`-D{title}`); in
 *    `-x{title}` it could add flags to a cluster. An element that starts with waves' own text
 *    (`Issue: {title}`) is never a flag.
 *
 * `valueFlags` can mark a tool's own flag as taking a value; it never unmarks an interpreter's code
 * flag, which rule 1 checks first.
 */
import { AgentTemplateError, PLACEHOLDERS, type AgentTemplate, type Placeholder } from './agent-command.js';

/** Placeholders whose values come from the issue's text. */
const UNTRUSTED: readonly Placeholder[] = ['title', 'prompt', 'lane', 'paths', 'branch'];

/**
 * Flags known to take a value. NOTE: `-p` is not one (node's `-p` evaluates code, Claude Code's
 * `-p` is a boolean), nor are `-f/--file` or `-o/--output`: a value naming a file would let an
 * issue choose a path to read or write.
 */
export const VALUE_FLAGS: readonly string[] = ['--title', '--model', '-m', '--message', '--prompt', '--name', '--description', '--body', '--subject'];

interface Interpreter {
  /** Flags whose value (or, for a shell, the first operand after it) is code. */
  long: readonly string[];
  /** Single letters that are code flags alone or in a cluster (`-c`, `-lc`, `-ne`). */
  letters: string;
  /** A shell: operands after its code string are positional parameters, which are data. */
  shell?: boolean;
}

const SHELL: Interpreter = { long: ['--command'], letters: 'c', shell: true };
const INTERPRETERS: Readonly<Record<string, Interpreter>> = {
  sh: SHELL, bash: SHELL, zsh: SHELL, dash: SHELL, ksh: SHELL, mksh: SHELL, ash: SHELL, yash: SHELL, csh: SHELL, tcsh: SHELL,
  fish: { long: ['--command', '--init-command'], letters: 'cC', shell: true },
  node: { long: ['--eval', '--print'], letters: 'ep' },
  nodejs: { long: ['--eval', '--print'], letters: 'ep' },
  deno: { long: ['eval', '--eval', '--print'], letters: 'ep' },
  bun: { long: ['--eval', '--print'], letters: 'ep' },
  python: { long: [], letters: 'cm' },
  perl: { long: [], letters: 'eE' },
  ruby: { long: [], letters: 'e' },
  php: { long: [], letters: 'r' },
  osascript: { long: [], letters: 'e' },
  env: { long: ['--split-string'], letters: 'S' },
  su: { long: ['--command', '--session-command'], letters: 'c' },
  sudo: { long: ['--shell', '--login'], letters: 'si' },
  script: { long: ['--command'], letters: 'c' },
  flock: { long: ['--command'], letters: 'c' },
};

/** Tools whose every operand may be read as code: no issue text after them at all. */
const CODE_EVERYWHERE = new Set(['pwsh', 'powershell', 'cmd', 'awk', 'gawk', 'mawk', 'nawk', 'busybox', 'sed', 'gsed', 'watch', 'ssh', 'eval']);

/** `/usr/bin/python3.12` → `python`, `C:\\Windows\\cmd.exe` → `cmd`, `ksh93` → `ksh`. */
function programName(element: string): string {
  return (element.split(/[\\/]/).pop() ?? '')
    .toLowerCase()
    .replace(/\.exe$/, '')
    .replace(/[\d.]+$/, '');
}

function isCodeFlag(element: string, interpreter: Interpreter): boolean {
  const name = element.split('=')[0]!;
  if (interpreter.long.includes(name)) return true;
  return /^-[A-Za-z]+$/.test(name) && [...interpreter.letters].some((letter) => name.slice(1).includes(letter));
}

const hasPlaceholder = (element: string) => /\{\w+\}/.test(element);

function untrustedIn(element: string): Placeholder | null {
  for (const match of element.matchAll(/\{(\w+)\}/g)) if (UNTRUSTED.includes(match[1] as Placeholder)) return match[1] as Placeholder;
  return null;
}

/**
 * What issue text at `index` would be to an interpreter before it: code (and why), a shell's
 * positional parameter (data, never an option), or nothing known.
 */
function interpreterRole(command: readonly string[], index: number): { code: string } | 'positional' | null {
  let role: 'positional' | null = null;
  for (let j = 0; j < index; j++) {
    const program = command[j]!;
    if (hasPlaceholder(program)) continue;
    const name = programName(program);
    if (CODE_EVERYWHERE.has(name)) return { code: `${name} may read any of its arguments as code` };
    const interpreter = Object.hasOwn(INTERPRETERS, name) ? INTERPRETERS[name] : undefined;
    if (!interpreter) continue;
    for (let k = j + 1; k <= index; k++) {
      if (!isCodeFlag(command[k]!, interpreter) && !(k === index && /^-/.test(command[k]!) && hasLeadingCodeFlag(command[k]!, interpreter))) continue;
      if (!interpreter.shell || k === index) return { code: `it would be code for ${name} ${command[k]!.split('=')[0]}` };
      // A shell runs the first operand after its code flag; later operands are $0, $1… (data).
      let code = k + 1;
      while (code < command.length && /^[-+]/.test(command[code]!) && !hasPlaceholder(command[code]!)) code++;
      if (index <= code) return { code: `it would be code for ${name} ${command[k]}` };
      role = 'positional';
      break;
    }
  }
  return role;
}

/** `-c{title}`, `--eval={title}`: a code flag with the value glued to it. */
function hasLeadingCodeFlag(element: string, interpreter: Interpreter): boolean {
  const literal = element.slice(0, element.indexOf('{'));
  if (interpreter.long.some((flag) => literal.startsWith(`${flag}=`))) return true;
  const cluster = /^-([A-Za-z]+)/.exec(literal);
  return cluster !== null && [...interpreter.letters].some((letter) => cluster[1]!.includes(letter));
}

/**
 * Checks a template against the rule above; throws `AgentTemplateError` (one line naming the agent,
 * the element and the fix) when it does not hold.
 */
export function validateTemplate(template: AgentTemplate): void {
  const { name, command } = template;
  if (command.length === 0) throw new AgentTemplateError(`agent ${name}: empty command`);
  if (hasPlaceholder(command[0]!)) throw new AgentTemplateError(`agent ${name}: the executable cannot be a placeholder`);
  const valueFlags = new Set([...VALUE_FLAGS, ...(template.valueFlags ?? [])]);
  const dashDash = command.indexOf('--');
  command.forEach((element, i) => {
    for (const match of element.matchAll(/\{(\w+)\}/g)) {
      if (!(PLACEHOLDERS as readonly string[]).includes(match[1]!)) {
        throw new AgentTemplateError(`agent ${name}: unknown placeholder {${match[1]}} (known: ${PLACEHOLDERS.map((p) => `{${p}}`).join(' ')})`);
      }
    }
    const placeholder = untrustedIn(element);
    if (!placeholder) return;
    const role = interpreterRole(command, i);
    if (role !== null && role !== 'positional') {
      throw new AgentTemplateError(`agent ${name}: "${element}" puts issue text ({${placeholder}}) where ${role.code}; issue text may only be data`);
    }
    if (role === 'positional') return; // $1, $2… of a shell's code string: never read as an option
    if (element.startsWith('-')) {
      const literal = element.slice(0, element.indexOf('{'));
      if (/^--[^=]+=/.test(literal)) return;
      if ([...valueFlags].some((flag) => /^-[^-]$/.test(flag) && literal.startsWith(flag))) return;
      throw new AgentTemplateError(`agent ${name}: "${element}" glues issue text to a short flag, where it could add flags of its own; use "--name={${placeholder}}" or a separate element after a flag that takes a value`);
    }
    const leading = /^\{(\w+)\}/.exec(element)?.[1] as Placeholder | undefined;
    if (!leading || !UNTRUSTED.includes(leading) || leading === 'prompt') return;
    if (dashDash >= 0 && i > dashDash) return;
    const previous = command[i - 1] ?? '';
    if (valueFlags.has(previous)) return;
    if (previous.startsWith('-') && previous !== '--' && !hasPlaceholder(previous)) {
      throw new AgentTemplateError(
        `agent ${name}: "${element}" follows "${previous}", a flag not known to take a value, so issue text could become a flag; add "${previous}" to the agent's valueFlags if it takes one, or put the text after "--"`,
      );
    }
    throw new AgentTemplateError(
      `agent ${name}: "${element}" starts with issue text that could become a flag; put it after a flag that takes a value ("--title", "${element}") or after "--"`,
    );
  });
}
