/**
 * What each preset may do unattended, and the flags (or the per-run config) that say so. Headless,
 * nobody answers a prompt, so each preset is started in the mode where editing files in its work
 * tree needs no approval, and running a command needs none only for the verification commands of
 * the config (and the commands a config of the person's own adds). Nothing ever bypasses every
 * permission by default.
 *
 * What the tools' documentation says, as checked for this file (2026-12):
 *
 * - Claude Code (code.claude.com/docs/en/permissions, /cli-reference, /headless): `--print` runs
 *   one prompt and exits; `--permission-mode acceptEdits` approves file edits (Edit, Write,
 *   MultiEdit, NotebookEdit) and leaves Bash to the rules, and in print mode a tool call no rule
 *   allows is refused rather than asked. `--allowedTools` takes rules as separate arguments
 *   (`--allowedTools "Bash(git log *)" "Read"`): it is variadic, so the flag after the rules
 *   (`--permission-mode`) ends the list and the prompt is never taken for a rule. A rule
 *   `Bash(npm run test:*)` allows `npm run test` and `npm run test …` (the `:*` suffix: a prefix
 *   at a word boundary, kept by every version since rules exist; the newer `Bash(npm run test *)`
 *   means the same), `Bash(npm run build)` only that command, and a `*` elsewhere any text,
 *   spaces included — which is why waves never writes one (see `commandRule`). Claude Code splits compound commands (`&&`, `;`, `|`) and checks each part, so
 *   `Bash(npm test:*)` does not allow `npm test && rm -rf ~`.
 * - Codex (developers.openai.com/codex/cli/reference, /noninteractive, /concepts/sandboxing):
 *   `codex exec` runs non-interactively, read-only by default; `--sandbox workspace-write` lets
 *   it write in its working root (and /tmp) with no network, `.git` (and a worktree's `.git` file
 *   and its git dir) kept read-only; `--cd DIR` (`-C`) sets that working root. Exec asks for no
 *   approval: what the sandbox forbids fails. `--skip-git-repo-check` is not passed: codex refuses
 *   a directory outside git without it, and waves' harvest needs git anyway.
 * - opencode (opencode.ai/docs/permissions, /docs/config): permissions live in config, not flags —
 *   `permission` maps a tool (`edit`, `bash`, `read`, `webfetch`, `external_directory`,
 *   `doom_loop`…) to `allow`, `ask` or `deny`, or to an object of patterns (`*` any text, `?` one
 *   character; the last match wins). Everything is allowed by default but `external_directory`
 *   and `doom_loop` (ask) and reading `.env` files. Headless, `opencode run` cannot answer an
 *   `ask`: depending on the version it hangs for ever or refuses (anomalyco/opencode#3503,
 *   #36762, #43888), so the per-run config leaves no `ask` at all. `OPENCODE_CONFIG_CONTENT` (an
 *   environment variable) is the config source loaded after the global, the `OPENCODE_CONFIG`
 *   and the project files: waves sets it for the agent only, never writing the person's config
 *   nor a file in the work tree.
 */
import { quoteArg } from '../shell-quote.js';
import type { AgentPermissions } from '../config-schema.js';
import { isCodeFlag, knownProgram, programNames } from './code-tables.js';

/** The environment variable of opencode's inline config (see above). */
export const OPENCODE_CONFIG_VARIABLE = 'OPENCODE_CONFIG_CONTENT';

/** codex's sandboxes, narrowest first. */
export const CODEX_SANDBOXES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export type CodexSandbox = (typeof CODEX_SANDBOXES)[number];
const DEFAULT_SANDBOX: CodexSandbox = 'workspace-write';

/** A command a preset may run without asking, as each tool writes it. */
export interface CommandRule {
  /** Claude Code's rule (`Bash(pnpm test:*)`). */
  claude: string;
  /** opencode's bash patterns (`pnpm test`, `pnpm test *`). */
  opencode: string[];
}

const PLACEHOLDER = /\{\w+\}/g;
const isVariable = (element: string) => /\{\w+\}/.test(element);

/**
 * What each tool's rule guarantees, and so what a rule may be made of:
 *
 * - Claude Code (code.claude.com/docs/en/permissions): `Bash(prefix:*)` matches a command that
 *   starts with `prefix` at a word boundary; it is aware of shell operators (`&&`, `;`, `|`, `||`,
 *   a newline), so `Bash(npm test:*)` does not allow `npm test && rm -rf ~` — each part must match
 *   a rule. It guarantees which program runs and the words it starts with, nothing about the words
 *   the agent adds after them. A `*` elsewhere matches any text, spaces included: `Bash(pnpm
 *   --filter * test)` allows `pnpm --filter . exec node -e … test`, so no rule has one.
 * - opencode (opencode.ai/docs/permissions): a bash pattern is a glob over the command text (`*`
 *   any text, `?` one character), the last match wins. Whether a version checks each part of a
 *   compound command on its own is not documented in a way waves relies on (not checked against a
 *   real binary here): a pattern guarantees at most what Claude Code's rule does, and `prefix *`
 *   may also allow `prefix x; rm -rf ~` — one more reason each rule must name a program whose
 *   added words cannot name another program, and why the live fence and harvest stay the guard.
 *
 * So a rule is made only for a command whose placeholders all come last (a prefix), and only when
 * the words before them are not a program that runs other programs or code with what follows
 * (`pnpm exec`, `npx`, `xargs`, `find` with `-exec`, `timeout`, `env`, `nice`, `node`, `make`…).
 * A placeholder in the middle gives no rule: the agent cannot run that command unattended, and
 * harvest runs the verification anyway.
 */

/** Programs that, as the first word of a command, run the program or code named by the words after them. */
const LAUNCHERS: ReadonlySet<string> = new Set([
  'env', 'nice', 'nohup', 'timeout', 'xargs', 'find', 'setsid', 'stdbuf', 'time', 'command', 'exec', 'builtin', 'chrt', 'ionice', 'taskset', 'strace', 'ltrace', 'valgrind',
  'npx', 'pnpx', 'bunx', 'corepack', 'volta', 'nvm', 'fnm', 'mise', 'asdf', 'direnv', 'dotenv', 'cross-env', 'uv', 'uvx', 'pipx', 'poetry', 'pdm', 'hatch', 'rye', 'conda', 'mamba',
  'docker', 'podman', 'kubectl', 'nix', 'flatpak', 'snap', 'systemd-run', 'chroot', 'unshare', 'nsenter', 'bwrap', 'proot',
  'go', 'cargo', 'dotnet', 'java', 'gradle', 'gradlew', 'mvn', 'sbt', 'make', 'gmake', 'cmake', 'ninja', 'just', 'task', 'rake', 'git', 'gh',
]);

/** Words that, anywhere in the fixed part, hand what follows to another program or to code. */
const LAUNCHER_WORDS: ReadonlySet<string> = new Set(['exec', 'x', 'dlx', 'exec-cli', 'npx', 'pnpx', 'bunx', 'node', 'tsx', 'ts-node', 'eval', 'shell', '-exec', '-execdir', '-ok', '--exec', '--import', '--require', '--loader', '--experimental-loader', '--eval', '--call', '--shell-mode', '--script-shell']);

/** Test runners (and package managers running a named script), the only programs a rule from the repository's own verify may name. */
const PACKAGE_MANAGERS: ReadonlySet<string> = new Set(['pnpm', 'npm', 'yarn']);
const TEST_RUNNERS: ReadonlySet<string> = new Set(['vitest', 'jest', 'mocha', 'ava', 'tap', 'playwright', 'pytest', 'tsc', 'vue-tsc', 'eslint', 'biome', 'prettier', 'oxlint']);
const SCRIPT = /^(test|lint|typecheck|check|build)(:[\w-]+)?$/;

/** Why a command's fixed part, with the agent's words after it, could run any program, or null. */
function launches(literal: readonly string[]): string | null {
  const names = programNames(literal[0]!);
  if (runsCode(literal)) return 'a program that runs code';
  const known = knownProgram(literal[0]!);
  // A runtime (`node --test`, `python -m pytest`): its added flags load code (`--import=data:…`).
  if (known && !known.everywhere && !names.some((name) => PACKAGE_MANAGERS.has(name))) return `${known.name} runs code given in its arguments`;
  // A package manager alone: `yarn node -e …`, `pnpm exec …` would be its words.
  if (literal.length === 1 && names.some((name) => PACKAGE_MANAGERS.has(name))) return `${names[0]} alone runs any script or program`;
  const launcher = names.find((name) => LAUNCHERS.has(name));
  if (launcher) return `${launcher} runs another program`;
  const word = literal.slice(1).find((element) => LAUNCHER_WORDS.has(element.split('=')[0]!));
  if (word) return `"${word}" runs another program or code`;
  const last = literal[literal.length - 1]!;
  // `pnpm run {paths}`: any script (`vitest run {paths}` is vitest's own word).
  if (literal.length === 2 && names.some((name) => PACKAGE_MANAGERS.has(name)) && ['run', 'run-script', 'start'].includes(last)) return `"${last}" runs a script or program the agent would name`;
  return null;
}

/** Whether a command of the repository's own verify names a known test runner (directly, or as `pnpm|npm [run] <runner>`). */
function testRunner(literal: readonly string[]): boolean {
  const first = programNames(literal[0]!);
  if (first.some((name) => TEST_RUNNERS.has(name))) return true;
  // `bun test` (what waves init writes for bun) too: a prefix rule for bun is refused by `launches` anyway.
  if (!first.some((name) => PACKAGE_MANAGERS.has(name) || name === 'bun')) return false;
  const words = literal.slice(1).filter((element) => !element.startsWith('-'));
  const script = words[0] === 'run' || words[0] === 'run-script' ? words[1] : words[0];
  return script !== undefined && (TEST_RUNNERS.has(script) || SCRIPT.test(script));
}

export interface CommandRuleOptions {
  /**
   * The command comes from the repository's own config (not one the person named with --config):
   * a rule only for a known test runner, so that the repository's verify allows no more than a
   * `permissions` setting of the repository could (none).
   */
  fromRepository?: boolean;
}

/**
 * The rule allowing a command given as an argv template (a verification command of the config,
 * whose `{paths}` and `{packages}` stand for what each issue fills in), written as the agent will
 * type it — each literal element shell-quoted as the worker prompt shows it, the placeholders at
 * its end any words. Null (no rule) when a placeholder stands in the middle or inside an element,
 * when the fixed part runs another program or code (see above), when the command holds a
 * parenthesis or a comma, which the rule list's syntax uses, and — from the repository's own
 * config — when it is no known test runner.
 */
export function commandRule(argv: readonly string[], options: CommandRuleOptions = {}): CommandRule | null {
  const first = argv.findIndex(isVariable);
  const literal = first < 0 ? argv : argv.slice(0, first);
  if (literal.length === 0) return null;
  // Claude Code reads a list of rules by their parentheses and commas: a command holding one (from
  // a repository's verify) could end its rule early and start another ("Bash" alone allows all).
  if (argv.some((element) => /[(),*?]/.test(element))) return null;
  if (options.fromRepository && !testRunner(literal)) return null;
  const exact = literal.map(quoteArg).join(' ');
  if (first < 0) return { claude: `Bash(${exact})`, opencode: [exact] };
  // Only whole placeholders after the fixed part make a prefix; one in the middle makes no rule.
  if (!argv.slice(first).every((element) => element.replace(PLACEHOLDER, '') === '')) return null;
  if (launches(literal) !== null) return null;
  return { claude: `Bash(${exact}:*)`, opencode: [exact, `${exact} *`] };
}

/** Why `commandRule` makes no rule for a command (for the dry run and the docs), or null when it makes one. */
export function noRuleReason(argv: readonly string[], options: CommandRuleOptions = {}): string | null {
  if (commandRule(argv, options) !== null) return null;
  const first = argv.findIndex(isVariable);
  const literal = first < 0 ? argv : argv.slice(0, first);
  if (literal.length === 0) return 'it starts with a placeholder';
  if (first >= 0 && !argv.slice(first).every((element) => element.replace(PLACEHOLDER, '') === '')) return 'a placeholder stands in the middle, where any words could go';
  if (options.fromRepository && !testRunner(literal)) return "the repository's own verify names no known test runner";
  return launches(literal) ?? 'it holds a character of the rule syntax';
}

/** Whether a literal prefix is a program that runs code with nothing but its own name or code flag. */
function runsCode(literal: readonly string[]): boolean {
  const known = knownProgram(literal[0]!);
  if (!known) return false;
  if (known.everywhere || literal.length === 1) return true;
  return literal.slice(1).some((element) => isCodeFlag(element, known.interpreter));
}

export interface PresetPermissionInput {
  /** The verification commands of the config (argv templates). */
  verify: readonly (readonly string[])[];
  /** `agents.<preset>.permissions` of the config. */
  permissions?: AgentPermissions | undefined;
  /** The verification commands come from the repository's own config (see `commandRule`). */
  verifyFromRepository?: boolean | undefined;
}

/** The rules of the verification commands and the config's own commands, once each. */
function commandRules(input: PresetPermissionInput): CommandRule[] {
  const fromRepository = input.verifyFromRepository === true;
  const rules = [...input.verify.map((argv) => commandRule(argv, { fromRepository })), ...(input.permissions?.commands ?? []).map((argv) => commandRule(argv))].filter((r): r is CommandRule => r !== null);
  return rules.filter((rule, i) => rules.findIndex((r) => r.claude === rule.claude) === i);
}

/** Claude Code's flags: edits allowed, Bash only for the rules. The list ends at `--permission-mode` (see above). */
export function claudePermissionArgs(input: PresetPermissionInput): string[] {
  const rules = [...commandRules(input).map((r) => r.claude), ...(input.permissions?.allowedTools ?? [])];
  const unique = [...new Set(rules)];
  return [...(unique.length > 0 ? ['--allowedTools', ...unique] : []), '--permission-mode', 'acceptEdits'];
}

/** codex's sandbox: workspace-write unless the config says otherwise. */
export function codexSandbox(input: PresetPermissionInput): CodexSandbox {
  return input.permissions?.sandbox ?? DEFAULT_SANDBOX;
}

/**
 * opencode's per-run config: its defaults (everything allowed), with bash denied but for the
 * rules, every `ask` closed (headless it would hang), the web off as in Claude Code's print mode,
 * and edits allowed.
 */
export function opencodeConfig(input: PresetPermissionInput): { permission: Record<string, unknown> } {
  const bash: Record<string, string> = { '*': 'deny' };
  for (const rule of commandRules(input)) for (const pattern of rule.opencode) bash[pattern] = 'allow';
  return {
    permission: {
      '*': 'allow',
      edit: 'allow',
      bash,
      read: { '*': 'allow', '*.env': 'deny', '*.env.*': 'deny', '*.env.example': 'allow' },
      webfetch: 'deny',
      websearch: 'deny',
      external_directory: 'deny',
      doom_loop: 'deny',
      question: 'deny',
    },
  };
}

/**
 * How `agents.<name>.permissions` widens what a preset may do beyond waves' own, in words, or null
 * when it does not (a narrower codex sandbox is not a widening).
 */
export function permissionsWidening(name: string, permissions: AgentPermissions | undefined): string | null {
  if (!permissions) return null;
  const wider: string[] = [];
  if ((permissions.commands ?? []).length > 0) wider.push(`permissions.commands (${permissions.commands!.map((c) => c.join(' ')).join('; ')})`);
  if ((permissions.allowedTools ?? []).length > 0) wider.push(`permissions.allowedTools (${permissions.allowedTools!.join(', ')})`);
  if (permissions.projectConfig === true) wider.push('permissions.projectConfig');
  if (permissions.sandbox !== undefined && CODEX_SANDBOXES.indexOf(permissions.sandbox) > CODEX_SANDBOXES.indexOf(DEFAULT_SANDBOX)) wider.push(`permissions.sandbox ${permissions.sandbox}`);
  return wider.length > 0 ? `agents.${name}.${wider.join(' and ').replace(/ and permissions\./g, ' and ')}` : null;
}
