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
 *   means the same), `Bash(npm run build)` only that command, and a `*` elsewhere any text
 *   (`Bash(pnpm --filter * test)`, newer versions; an older one does not match it, so the rule
 *   fails closed). Claude Code splits compound commands (`&&`, `;`, `|`) and checks each part, so
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
import { isCodeFlag, knownProgram } from './code-tables.js';

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
 * The rule allowing a command given as an argv template (a verification command of the config,
 * whose `{paths}` and `{packages}` stand for what each issue fills in), written as the agent will
 * type it — each literal element shell-quoted as the worker prompt shows it, each placeholder any
 * text. Null (no rule) when the literal part is only a program that runs code (`node {paths}`,
 * `sh -c {paths}`): the rule would allow anything; and when the command holds a parenthesis or a
 * comma, which the rule list's syntax uses.
 */
export function commandRule(argv: readonly string[]): CommandRule | null {
  const first = argv.findIndex(isVariable);
  const literal = first < 0 ? argv : argv.slice(0, first);
  if (literal.length === 0) return null;
  if (first >= 0 && runsCode(literal)) return null;
  // Claude Code reads a list of rules by their parentheses and commas: a command holding one (from
  // a repository's verify) could end its rule early and start another ("Bash" alone allows all).
  if (argv.some((element) => /[(),]/.test(element))) return null;
  const exact = literal.map(quoteArg).join(' ');
  if (first < 0) return { claude: `Bash(${exact})`, opencode: [exact] };
  // Only placeholders after the literal part: a prefix.
  if (argv.slice(first).every((element) => element.replace(PLACEHOLDER, '') === '')) {
    return { claude: `Bash(${exact}:*)`, opencode: [exact, `${exact} *`] };
  }
  // Placeholders in the middle: a wildcard pattern, each placeholder any text.
  const words = argv.map((element) => (isVariable(element) ? element.split(PLACEHOLDER).map(quoteWord).join('*') : quoteArg(element).replace(/\*/g, '\\*')));
  const pattern = words.join(' ').replace(/(?: \*)+$/, ' *');
  return { claude: `Bash(${pattern})`, opencode: [pattern.replace(/\\\*/g, '*')] };
}

/** A literal piece of an element holding a placeholder, left bare (`--filter=` stays as typed). */
const quoteWord = (piece: string) => (piece === '' ? '' : quoteArg(piece).replace(/\*/g, '\\*'));

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
}

/** The rules of the verification commands and the config's own commands, once each. */
function commandRules(input: PresetPermissionInput): CommandRule[] {
  const rules = [...input.verify, ...(input.permissions?.commands ?? [])].map(commandRule).filter((r): r is CommandRule => r !== null);
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
  if (permissions.sandbox !== undefined && CODEX_SANDBOXES.indexOf(permissions.sandbox) > CODEX_SANDBOXES.indexOf(DEFAULT_SANDBOX)) wider.push(`permissions.sandbox ${permissions.sandbox}`);
  return wider.length > 0 ? `agents.${name}.${wider.join(' and ').replace(/ and permissions\./g, ' and ')}` : null;
}
