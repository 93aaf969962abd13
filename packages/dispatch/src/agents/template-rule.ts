/**
 * The rule an agent's argv template must follow before any issue text goes into it. Issue text —
 * the untrusted placeholders {title} {prompt} {lane} {paths} {branch} — is data, never code and
 * never a flag. An allow-list, because the other way round (refusing the places known to be code)
 * kept missing some: `make --eval={title}`, `vim +{title}`, `tmux new -- {title}`, `env
 * BASH_ENV={title} bash f`.
 *
 * An element holding issue text is accepted only
 *
 * 1. as the value of a flag known to take one — the built-in `VALUE_FLAGS` or the agent's own
 *    `valueFlags` — either the element right after the flag (`--title`, `Issue #{number}: {title}`)
 *    or glued with `=` (`--title={title}`); or
 * 2. as a whole positional `{prompt}` element: the prompt starts with waves' own text, so it is
 *    never a flag (render-prompt.ts makes sure), and nothing an issue says can start it — unless it
 *    follows a flag that runs code in many tools (`CODE_FLAGS`: `--eval {prompt}`).
 *
 * Nowhere else: not embedded in another positional element (`+{title}`, `BASH_ENV={title}`,
 * `Issue: {title}`), not after `--`, not glued to a short flag (`-D{title}`).
 *
 * Then, first of all, never code, whatever the position (code-tables.ts): no issue text at or after
 * a code flag of a program named earlier in the argv (`sh -c`, `node -e`, `make --eval`, `git -c`,
 * `npx --call`, `nix-shell --run`…; a shell's positional parameters after its code string excepted,
 * `sh -c 'tool "$1"' sh {prompt}`) or after a subcommand that runs a command line (`git submodule
 * foreach`, `git bisect run`), and none at all after a program that hands its arguments to a
 * shell or may read any of them as code (`sg`, `tmux`, `ssh`, `su`, `awk`, `sed`, `vim`, `emacs`…).
 *
 * NOTE: a whole `{prompt}` after a program in none of the tables is taken as data for it. A tool
 * that runs its argument through a shell and is not in the tables is a gap of the tables (add
 * it there: that only ever refuses more), and for a tool of one's own the configurer's to vet.
 *
 * `valueFlags` may never name a code flag: one of `CODE_FLAGS`, a `+` flag, or a code flag of a
 * program of the template.
 */
import { AgentTemplateError, PLACEHOLDERS, type AgentTemplate, type Placeholder } from './agent-command.js';
import { CODE_FLAGS, isCodeFlag, knownProgram, type Interpreter } from './code-tables.js';

/** Placeholders whose values come from the issue's text. */
const UNTRUSTED: readonly Placeholder[] = ['title', 'prompt', 'lane', 'paths', 'branch'];

/**
 * Flags known to take a value. NOTE: `-p` is not one (node's `-p` evaluates code, Claude Code's
 * `-p` is a boolean), nor are `-f/--file` or `-o/--output`: a value naming a file would let an
 * issue choose a path to read or write.
 */
export const VALUE_FLAGS: readonly string[] = ['--title', '--model', '-m', '--message', '--prompt', '--name', '--description', '--body', '--subject'];

const hasPlaceholder = (element: string) => /\{\w+\}/.test(element);

function untrustedIn(element: string): Placeholder | null {
  for (const match of element.matchAll(/\{(\w+)\}/g)) if (UNTRUSTED.includes(match[1] as Placeholder)) return match[1] as Placeholder;
  return null;
}

/** The programs of a template with code flags, as (name, interpreter), in argv order. */
function interpretersIn(command: readonly string[]): [string, Interpreter][] {
  const out: [string, Interpreter][] = [];
  for (const element of command) {
    if (hasPlaceholder(element)) continue;
    const known = knownProgram(element);
    if (known && !known.everywhere) out.push([known.name, known.interpreter]);
  }
  return out;
}

/** `-c{title}`, `--eval={title}`: a code flag with the value glued to it. */
function hasLeadingCodeFlag(element: string, interpreter: Interpreter): boolean {
  const literal = element.slice(0, element.indexOf('{'));
  if (interpreter.long.some((flag) => literal.startsWith(`${flag}=`))) return true;
  const cluster = /^-([A-Za-z]+)/.exec(literal);
  return cluster !== null && [...interpreter.letters].some((letter) => cluster[1]!.includes(letter));
}

/** Whether `words` appear, in this order, as whole elements after `program` and before `index` (`git submodule --quiet foreach`). */
function wordsBefore(command: readonly string[], program: number, index: number, words: readonly string[]): boolean {
  let at = program;
  for (const word of words) {
    at = command.indexOf(word, at + 1);
    if (at < 0 || at >= index) return false;
  }
  return true;
}

/**
 * What issue text at `index` would be to a program before it: code (and why), a shell's
 * positional parameter (data, never an option), or nothing known.
 */
function interpreterRole(command: readonly string[], index: number): { code: string } | 'positional' | null {
  let role: 'positional' | null = null;
  for (let j = 0; j < index; j++) {
    const program = command[j]!;
    if (hasPlaceholder(program)) continue;
    const known = knownProgram(program);
    if (!known) continue;
    const { name } = known;
    if (known.everywhere) return { code: `${name} may read any of its arguments as code` };
    const { interpreter } = known;
    const subcommand = (interpreter.codeAfter ?? []).find((words) => wordsBefore(command, j, index, words));
    if (subcommand) return { code: `it would be code for ${name} ${subcommand.join(' ')}` };
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

/** Why `flag` may not be declared in `valueFlags`, or null when it may. */
function codeFlagProblem(flag: string, interpreters: readonly [string, Interpreter][]): string | null {
  if (flag.startsWith('+')) return 'a + flag runs a command in editors such as vim';
  if (CODE_FLAGS.has(flag)) return 'a flag that runs code in many tools';
  const of = interpreters.find(([, interpreter]) => isCodeFlag(flag, interpreter));
  return of ? `a code flag of ${of[0]}` : null;
}

/**
 * Checks a template against the rule above; throws `AgentTemplateError` (one line naming the agent,
 * the element and the fix) when it does not hold.
 */
export function validateTemplate(template: AgentTemplate): void {
  const { name, command } = template;
  if (command.length === 0) throw new AgentTemplateError(`agent ${name}: empty command`);
  if (hasPlaceholder(command[0]!)) throw new AgentTemplateError(`agent ${name}: the executable cannot be a placeholder`);
  const interpreters = interpretersIn(command);
  for (const flag of template.valueFlags ?? []) {
    const problem = codeFlagProblem(flag, interpreters);
    if (problem) throw new AgentTemplateError(`agent ${name}: valueFlags names "${flag}", ${problem}: issue text may never be its value`);
  }
  const valueFlags = new Set([...VALUE_FLAGS, ...(template.valueFlags ?? [])]);
  command.forEach((element, i) => {
    for (const match of element.matchAll(/\{(\w+)\}/g)) {
      if (!(PLACEHOLDERS as readonly string[]).includes(match[1]!)) {
        throw new AgentTemplateError(`agent ${name}: unknown placeholder {${match[1]}} (known: ${PLACEHOLDERS.map((p) => `{${p}}`).join(' ')})`);
      }
    }
    const placeholder = untrustedIn(element);
    if (!placeholder) return;
    // Never code, wherever it stands.
    const role = interpreterRole(command, i);
    if (role !== null && role !== 'positional') {
      throw new AgentTemplateError(`agent ${name}: "${element}" puts issue text ({${placeholder}}) where ${role.code}; issue text may only be data`);
    }
    const previous = command[i - 1] ?? '';
    // 1. The value of a known value flag: the next element, or glued with `=`.
    if (valueFlags.has(previous) && !hasPlaceholder(previous)) return;
    const glued = /^(--?[A-Za-z0-9][\w.-]*)=/.exec(element);
    if (glued && valueFlags.has(glued[1]!)) return;
    // 2. The whole prompt, as a positional (a shell's $1 included) — but not as the value of a code flag.
    if (element === '{prompt}') {
      if (CODE_FLAGS.has(previous)) {
        throw new AgentTemplateError(`agent ${name}: "{prompt}" follows "${previous}", a flag that runs code in many tools; issue text may only be data`);
      }
      return;
    }
    if (glued) {
      throw new AgentTemplateError(
        `agent ${name}: "${element}" puts issue text after "${glued[1]}=", a flag not known to take a value, so it could be code or flags; add "${glued[1]}" to the agent's valueFlags if it takes one`,
      );
    }
    if (previous.startsWith('-') && previous !== '--' && !hasPlaceholder(previous)) {
      throw new AgentTemplateError(
        `agent ${name}: "${element}" follows "${previous}", a flag not known to take a value, so issue text could become a flag or code; add "${previous}" to the agent's valueFlags if it takes one`,
      );
    }
    if (element.startsWith('-')) {
      throw new AgentTemplateError(`agent ${name}: "${element}" glues issue text to a flag, where it could add flags of its own; use "--name={${placeholder}}" with a flag the agent declares in valueFlags`);
    }
    throw new AgentTemplateError(
      `agent ${name}: "${element}" puts issue text ({${placeholder}}) where it is neither the value of a flag known to take one nor the whole {prompt}, so it could become a flag or code; put it after a flag that takes a value ("--title", "${element}")`,
    );
  });
}
