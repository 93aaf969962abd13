/**
 * Agent commands as data: a preset for opencode, Claude Code and Codex, or a custom argv
 * template from the config. A command is always an argv array — nothing ever goes through a
 * shell — and each placeholder is replaced inside the one element that holds it, never split
 * into several or joined with others.
 */
import type { AgentConfig } from '../config-schema.js';

export const PLACEHOLDERS = ['number', 'title', 'prompt', 'model', 'lane', 'paths', 'worktree', 'branch'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type CommandValues = Record<Placeholder, string>;

/** Placeholders whose values come from the issue's text: they must never become flags. */
const UNTRUSTED: readonly Placeholder[] = ['title', 'prompt', 'lane', 'paths', 'branch'];

export interface AgentTemplate {
  name: string;
  /** argv with `{placeholder}`s; an element that is exactly `{model}` is dropped, with its flag, when no model is set. */
  command: string[];
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

/**
 * Checks that untrusted text can only land as the value of a flag, after `--`, or inside an
 * element that starts with waves' own text: a title starting with `-` must not become a flag.
 */
export function validateTemplate(template: AgentTemplate): void {
  if (template.command.length === 0) throw new AgentTemplateError(`agent ${template.name}: empty command`);
  if (/\{\w+\}/.test(template.command[0]!)) throw new AgentTemplateError(`agent ${template.name}: the executable cannot be a placeholder`);
  const dashDash = template.command.indexOf('--');
  template.command.forEach((element, i) => {
    for (const match of element.matchAll(/\{(\w+)\}/g)) {
      if (!(PLACEHOLDERS as readonly string[]).includes(match[1]!)) {
        throw new AgentTemplateError(`agent ${template.name}: unknown placeholder {${match[1]}} (known: ${PLACEHOLDERS.map((p) => `{${p}}`).join(' ')})`);
      }
    }
    const leading = /^\{(\w+)\}/.exec(element);
    if (!leading || !UNTRUSTED.includes(leading[1] as Placeholder)) return;
    const afterDashDash = dashDash >= 0 && i > dashDash;
    const previous = template.command[i - 1] ?? '';
    const isFlagValue = previous.startsWith('-') && previous !== '--' && !previous.includes('=') && !/\{\w+\}/.test(previous);
    if (!afterDashDash && !isFlagValue && leading[1] !== 'prompt') {
      throw new AgentTemplateError(
        `agent ${template.name}: "${element}" starts with issue text that could become a flag; put it after a flag ("--title", "${element}") or after "--"`,
      );
    }
  });
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

/** The template of a preset or a configured agent (whose config may only set the preset's `env`). */
export function agentTemplate(name: string, agents: Readonly<Record<string, AgentConfig>> = {}): AgentTemplate {
  const custom = Object.hasOwn(agents, name) ? agents[name] : undefined;
  const preset = Object.hasOwn(AGENT_PRESETS, name) ? AGENT_PRESETS[name] : undefined;
  const command = custom?.command ?? preset?.command;
  if (command) return { name, command: [...command], ...(custom?.env ? { env: [...custom.env] } : {}) };
  const known = [...new Set([...Object.keys(AGENT_PRESETS), ...Object.keys(agents)])].sort();
  throw new AgentTemplateError(`unknown agent ${JSON.stringify(name)} (known: ${known.join(', ')})`);
}
