/**
 * Agent commands as data: a preset for opencode, Claude Code and Codex, or a custom argv
 * template from the config. A command is always an argv array — nothing ever goes through a
 * shell — and each placeholder is replaced inside the one element that holds it, never split
 * into several or joined with others. Where issue text may stand is template-rule.ts's.
 */
import type { AgentConfig } from '../config-schema.js';

export const PLACEHOLDERS = ['number', 'title', 'prompt', 'model', 'lane', 'paths', 'worktree', 'branch'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type CommandValues = Record<Placeholder, string>;

export interface AgentTemplate {
  name: string;
  /** argv with `{placeholder}`s; an element that is exactly `{model}` is dropped, with its flag, when no model is set. */
  command: string[];
  /** The tool's own flags that take a value, besides the known ones (see template-rule.ts). */
  valueFlags?: string[];
  /** Token variables passed through to the agent (`agents.<name>.env`). */
  env?: string[];
}

/**
 * The non-interactive run form of each agent, with a session title where the agent has one.
 * The prompt is always last and always starts with waves' own text, never with issue text.
 */
export const AGENT_PRESETS: Record<string, AgentTemplate> = {
  opencode: { name: 'opencode', command: ['opencode', 'run', '--title', 'Issue #{number}: {title}', '--model', '{model}', '{prompt}'] },
  claude: { name: 'claude', command: ['claude', '--print', '--model', '{model}', '{prompt}'] },
  codex: { name: 'codex', command: ['codex', 'exec', '--model', '{model}', '{prompt}'] },
};

const PLACEHOLDER = /\{(number|title|prompt|model|lane|paths|worktree|branch)\}/g;

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
 * in a config sets only its settings (`env`, `valueFlags`; the config schema refuses a `command`).
 */
export function agentTemplate(name: string, agents: Readonly<Record<string, AgentConfig>> = {}): AgentTemplate {
  // Own properties only: `toString` or `__proto__` is a name like any other, not an agent.
  const custom = Object.hasOwn(agents, name) ? agents[name] : undefined;
  const preset = Object.hasOwn(AGENT_PRESETS, name) ? AGENT_PRESETS[name] : undefined;
  const command = preset?.command ?? custom?.command;
  if (command) {
    return {
      name,
      command: [...command],
      ...(custom?.valueFlags ? { valueFlags: [...custom.valueFlags] } : {}),
      ...(custom?.env ? { env: [...custom.env] } : {}),
    };
  }
  const known = [...new Set([...Object.keys(AGENT_PRESETS), ...Object.keys(agents)])].sort();
  throw new AgentTemplateError(`unknown agent ${JSON.stringify(name)} (known: ${known.join(', ')})`);
}
