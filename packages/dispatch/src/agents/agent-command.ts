/**
 * Agent commands as data: a preset for opencode, Claude Code and Codex, or a custom argv
 * template from the config. A command is always an argv array — nothing ever goes through a
 * shell — and each placeholder is replaced inside the one element that holds it, never split
 * into several or joined with others. Where issue text may stand is template-rule.ts's.
 */
import type { AgentConfig } from '../config-schema.js';
import { claudePermissionArgs, codexSandbox, OPENCODE_CONFIG_VARIABLE, opencodeConfig, type PresetPermissionInput } from './preset-permissions.js';

/** `{cwd}`: the absolute directory the agent runs in — its worktree, or the root. */
export const PLACEHOLDERS = ['number', 'title', 'prompt', 'model', 'lane', 'paths', 'worktree', 'branch', 'cwd'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type CommandValues = Record<Placeholder, string>;

export interface AgentTemplate {
  name: string;
  /** argv with `{placeholder}`s; an element that is exactly `{model}` is dropped, with its flag, when no model is set (and so is `--flag={model}`). */
  command: string[];
  /** The tool's own flags that take a value, besides the known ones (see template-rule.ts). */
  valueFlags?: string[];
  /** Token variables passed through to the agent (`agents.<name>.env`). */
  env?: string[];
  /** Variables waves sets for the agent (a preset's own: opencode's per-run permissions). */
  environment?: Record<string, string>;
}

/**
 * The non-interactive run form of each agent, able to edit its work tree unattended, with a
 * session title where the agent has one (preset-permissions.ts says what each may do, and why
 * these flags): Claude Code in acceptEdits mode, its Bash limited to the verification commands;
 * codex in its workspace-write sandbox rooted at the run's directory; opencode with a per-run
 * permission config in its environment. The prompt is always last and always starts with waves'
 * own text, never with issue text. The model is glued to its flag (`--model=M`: yargs, commander
 * and clap all read that form), so that no model can ever be read as a flag of its own (and one
 * starting with `-` is refused by the config schema and `--model` anyway).
 */
export function presetTemplate(name: 'opencode' | 'claude' | 'codex', input: PresetPermissionInput = { verify: [] }): AgentTemplate {
  switch (name) {
    case 'opencode':
      return {
        name,
        command: ['opencode', 'run', '--title', 'Issue #{number}: {title}', '--model={model}', '{prompt}'],
        environment: { [OPENCODE_CONFIG_VARIABLE]: JSON.stringify(opencodeConfig(input)) },
      };
    case 'claude':
      return { name, command: ['claude', '--print', ...claudePermissionArgs(input), '--model={model}', '{prompt}'] };
    case 'codex':
      return { name, command: ['codex', 'exec', '--sandbox', codexSandbox(input), '--cd', '{cwd}', '--model={model}', '{prompt}'] };
  }
}

/** The presets as they are with no verification commands and no settings of a config. */
export const AGENT_PRESETS: Record<string, AgentTemplate> = {
  opencode: presetTemplate('opencode'),
  claude: presetTemplate('claude'),
  codex: presetTemplate('codex'),
};

const PLACEHOLDER = /\{(number|title|prompt|model|lane|paths|worktree|branch|cwd)\}/g;

export class AgentTemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentTemplateError';
  }
}

/** Fills a template: one argv element per template element (but a dropped `--model {model}`). */
export function renderCommand(template: AgentTemplate, values: CommandValues): string[] {
  const out: string[] = [];
  template.command.forEach((element, i) => {
    if (values.model === '' && /^--?[A-Za-z][\w-]*=\{model\}$/.test(element)) return;
    if (element === '{model}' && values.model === '') {
      // No model: drop the value and the flag that introduced it.
      if (out.length > 0 && template.command[i - 1]?.startsWith('-')) out.pop();
      return;
    }
    out.push(element.replace(PLACEHOLDER, (_m, name: Placeholder) => values[name]));
  });
  return out;
}

/**
 * The template of a preset or a configured agent. A preset's command is always its own: its entry
 * in a config sets only its settings (`env`, `valueFlags`, `permissions`; the config schema
 * refuses a `command`), and the verification commands are what it may run (preset-permissions.ts).
 */
export function agentTemplate(name: string, agents: Readonly<Record<string, AgentConfig>> = {}, options: { verify?: readonly (readonly string[])[] | undefined; verifyFromRepository?: boolean | undefined } = {}): AgentTemplate {
  // Own properties only: `toString` or `__proto__` is a name like any other, not an agent.
  const custom = Object.hasOwn(agents, name) ? agents[name] : undefined;
  const preset = Object.hasOwn(AGENT_PRESETS, name) ? presetTemplate(name as 'opencode' | 'claude' | 'codex', { verify: options.verify ?? [], permissions: custom?.permissions, verifyFromRepository: options.verifyFromRepository }) : undefined;
  const command = preset?.command ?? custom?.command;
  if (command) {
    return {
      name,
      command: [...command],
      ...(custom?.valueFlags ? { valueFlags: [...custom.valueFlags] } : {}),
      ...(custom?.env ? { env: [...custom.env] } : {}),
      ...(preset?.environment ? { environment: { ...preset.environment } } : {}),
    };
  }
  const known = [...new Set([...Object.keys(AGENT_PRESETS), ...Object.keys(agents)])].sort();
  throw new AgentTemplateError(`unknown agent ${JSON.stringify(name)} (known: ${known.join(', ')})`);
}
