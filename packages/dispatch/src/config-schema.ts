/**
 * The dispatch part of `waves.config.json`: agents, model routing, the worker prompt, the
 * verification commands and the lease journal. The CLI composes it with the planning part into
 * the one schema of the file.
 */
import { z } from 'zod';
import { AGENT_PRESETS } from './agents/agent-command.js';
import { holderProblem } from '@waves/planner';

const DURATION = z.string().regex(/^\d+(?:ms|s|m|h|d)$/, 'a duration such as 30m, 1h or 2d');

/**
 * What a preset may do beyond waves' own permissions (see preset-permissions.ts): only ever from a
 * config named with --config — a repository's own may not widen what its next agent may do.
 */
export const AgentPermissionsSchema = z.strictObject({
  commands: z
    .array(z.array(z.string().min(1)).min(1))
    .optional()
    .describe('claude, opencode: more commands the agent may run without asking, besides the verify commands, as argv prefixes (["pnpm", "lint"] allows `pnpm lint` and `pnpm lint …`)'),
  allowedTools: z
    .array(
      z
        .string()
        .regex(/^[A-Za-z]/, 'a Claude Code permission rule, such as "WebFetch" or "Bash(make check:*)"')
        .refine((rule) => !/\{\w+\}/.test(rule), 'no {name} in a rule: it would be read as a placeholder'),
    )
    .optional()
    .describe('claude only: more Claude Code permission rules, passed as they are to --allowedTools ("WebFetch(domain:docs.rs)", "Bash")'),
  sandbox: z
    .enum(['read-only', 'workspace-write', 'danger-full-access'])
    .optional()
    .describe("codex only: its sandbox (default workspace-write; read-only narrows it, danger-full-access removes it)"),
  projectConfig: z
    .boolean()
    .optional()
    .describe("an agent run by claude or opencode (a preset or your own): start even when the run's tree holds the tool's own project config that widens it (.claude/settings*.json permissions or hooks; opencode.json permission/agent keys, .opencode agents or plugins); default false: the run does not start"),
});

export const AgentConfigSchema = z.strictObject({
  command: z
    .array(z.string())
    .min(1)
    .optional()
    .describe('argv template; placeholders {number} {title} {prompt} {model} {lane} {paths} {worktree} {branch} {cwd} are replaced inside one element each (never for the presets opencode, claude, codex, whose command is fixed)'),
  valueFlags: z
    .array(z.string().regex(/^-/, 'a flag, starting with -'))
    .optional()
    .describe("This tool's flags that take a value, so that issue text may follow them (never an interpreter's code flag such as sh -c)"),
  env: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'))
    .optional()
    .describe('Token variables passed through to this agent (GITHUB_TOKEN, GH_TOKEN, GITHUB_ENTERPRISE_TOKEN, GH_ENTERPRISE_TOKEN are left out otherwise; every other variable is always passed); honoured only in a config named with --config, never in a repository\'s own'),
  permissions: AgentPermissionsSchema.optional().describe(
    'A preset\'s permissions beyond its own (claude: commands, allowedTools; opencode: commands; codex: sandbox); a widening is honoured only in a config named with --config, never in a repository\'s own',
  ),
});

/** Which preset each permission setting is for. */
const PERMISSION_OWNERS: Record<Exclude<keyof z.infer<typeof AgentPermissionsSchema>, 'projectConfig'>, readonly string[]> = {
  commands: ['claude', 'opencode'],
  allowedTools: ['claude'],
  sandbox: ['codex'],
};

export const AgentsConfigSchema = z.record(z.string(), AgentConfigSchema).superRefine((agents, ctx) => {
  for (const [name, agent] of Object.entries(agents)) {
    const preset = Object.hasOwn(AGENT_PRESETS, name);
    // A preset's command is waves' own: a config (a clone's too) redefining it would run anything
    // under a name the user trusts — opencode is the default agent. Its entry carries settings only.
    if (preset && agent.command !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [name, 'command'],
        message: `${name} is a preset, whose command cannot be redefined; give your own command a name of its own ("my-${name}") and choose it with --agent`,
      });
    }
    // Any other agent needs a command.
    if (agent.command === undefined && !preset) {
      ctx.addIssue({ code: 'custom', path: [name, 'command'], message: `required: ${name} is not a preset (${Object.keys(AGENT_PRESETS).join(', ')})` });
    }
    // A custom agent's command says itself what it allows; each setting is for the presets that have it.
    // projectConfig is any agent's whose executable is claude or opencode (project-agent-config.ts).
    for (const key of Object.keys(agent.permissions ?? {}).filter((k) => k !== 'projectConfig') as (keyof typeof PERMISSION_OWNERS)[]) {
      if (!PERMISSION_OWNERS[key].includes(name)) {
        const owners = PERMISSION_OWNERS[key].join(' and ');
        ctx.addIssue({
          code: 'custom',
          path: [name, 'permissions', key],
          message: preset ? `${key} is a setting of ${owners} only` : `${name} is not a preset: its own command says what it allows (permissions.${key} is for ${owners})`,
        });
      }
    }
  }
});

export const LogsConfigSchema = z.strictObject({
  maxBytes: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Bytes of each agent's log (and each verification command's output) kept; past it the log says it was truncated and the rest is discarded while the process runs on (default: no cap)"),
});

/**
 * Why a model name may not be passed after `--model`, or null. One starting with `-` would be read
 * as a flag by opencode's parser (yargs: `--model --share` turns sharing on, `--model
 * --attach=URL` attaches the run to a server); whitespace or control characters are no model name.
 */
export function modelNameProblem(model: string): string | null {
  if (model.startsWith('-')) return 'starts with "-", which the agent would read as a flag';
  if (/[\s\p{Cc}]/u.test(model)) return 'holds whitespace or a control character';
  return null;
}

export const TierSchema = z.strictObject({
  model: z
    .string()
    .min(1)
    .superRefine((model, ctx) => {
      const problem = modelNameProblem(model);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: `the model ${JSON.stringify(model)} ${problem}` });
    })
    .describe('The model the agent is started with (never starting with "-")'),
  recordAs: z.string().optional().describe('How the run records the model (defaults to model)'),
  manualOnly: z.boolean().optional().describe('Never chosen by automatic routing (the most expensive tier)'),
});

export const RoutingConfigSchema = z
  .strictObject({
    categories: z.record(z.string(), z.string()).optional().describe('Issue category (from a category:<name> label) → tier'),
    tiers: z.record(z.string(), TierSchema).describe('Tier → model; a "default" tier, the cheap one, is required'),
    maxNonDefaultConcurrent: z.number().int().min(0).optional().describe('Most non-default-tier agents in one wave (default 1)'),
  })
  .superRefine((routing, ctx) => {
    // Own properties only: a tier named "toString" is not in every object.
    if (!Object.hasOwn(routing.tiers, 'default')) ctx.addIssue({ code: 'custom', path: ['tiers'], message: 'needs a "default" tier' });
    for (const [category, tier] of Object.entries(routing.categories ?? {})) {
      if (!Object.hasOwn(routing.tiers, tier)) ctx.addIssue({ code: 'custom', path: ['categories', category], message: `names tier "${tier}", which is not in tiers` });
      else if (routing.tiers[tier]!.manualOnly) ctx.addIssue({ code: 'custom', path: ['categories', category], message: `routes to the manual-only tier "${tier}"` });
    }
  });

export const PromptConfigSchema = z.strictObject({
  template: z.string().optional().describe('The worker prompt template, inline'),
  file: z.string().optional().describe('A file holding the worker prompt template, relative to the root'),
});

export const LeasesConfigSchema = z.strictObject({
  journal: z.string().optional().describe('The lease journal, relative to the root (default .waves/leases.jsonl)'),
  ttl: z.string().regex(/^\d+(?:ms|s|m|h|d)$/, 'a duration such as 30m, 1h or 2d').optional().describe('Default lease time to live'),
  holder: z
    .string()
    .superRefine((holder, ctx) => {
      const problem = holderProblem(holder);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional()
    .describe('Who this orchestrator is in the journal (default user@host): not empty, at most 200 characters, no control character'),
  backend: z.enum(['journal', 'git']).optional().describe('Where leases live: journal (this machine, the default) or git (a ref on the remote, shared by every machine)'),
  remote: z.string().optional().describe('The git backend\'s remote: a remote name (default origin), or a URL or path in a config named with --config'),
  ref: z.string().optional().describe('The git backend\'s ref, under refs/waves/ (default refs/waves/leases)'),
  clockSkew: z
    .string()
    .regex(/^\d+(?:ms|s|m|h|d)$/, 'a duration such as 30s or 1m')
    .optional()
    .describe('The git backend\'s margin for clocks of different machines (default 1m)'),
});

export const WorktreeConfigSchema = z.strictObject({
  setup: z
    .array(z.array(z.string().min(1)).min(1))
    .optional()
    .describe(
      'Commands (argv arrays, no shell) run one after the other in each worktree of a --worktree run before its agent starts; default from the lockfile at the root (pnpm install --frozen-lockfile --prefer-offline, npm ci, yarn install), [] for none',
    ),
  setupTimeout: DURATION.optional().describe('How long each setup command may run (default 10m)'),
});

export const FenceConfigSchema = z.strictObject({
  live: z.boolean().optional().describe('Check every edit of a run against the leases as it happens: hooks, a socket, a watcher (default true)'),
  onRefusal: z
    .enum(['tell', 'stop'])
    .optional()
    .describe('What a refused write outside the fence does: tell the agent (default), or stop the run, recorded fenced'),
});

/** The dispatch keys of waves.config.json. */
export const DispatchConfigShape = {
  agents: AgentsConfigSchema.optional().describe('Custom agents by name, chosen with --agent NAME, or settings (env, valueFlags, permissions) of a preset, whose command is fixed'),
  worktree: WorktreeConfigSchema.optional().describe('How each worktree of a --worktree run is set up before its agent starts'),
  routing: RoutingConfigSchema.optional().describe('Model routing: category → tier → model'),
  prompt: PromptConfigSchema.optional().describe('The worker prompt template'),
  verify: z.array(z.array(z.string()).min(1)).optional().describe('Verification commands as argv arrays ({paths} and {packages} placeholders)'),
  verifyTimeout: DURATION
    .optional()
    .describe('How long waves harvest lets each verification command run (default 10m)'),
  leases: LeasesConfigSchema.optional().describe('The lease journal'),
  logs: LogsConfigSchema.optional().describe('Agent and verification logs'),
  fence: FenceConfigSchema.optional().describe('The live fence: what a refused write outside a run\'s fence does'),
};

export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type AgentPermissions = z.infer<typeof AgentPermissionsSchema>;
export type LogsConfig = z.infer<typeof LogsConfigSchema>;
export type WorktreeConfig = z.infer<typeof WorktreeConfigSchema>;
export type RoutingConfig = z.infer<typeof RoutingConfigSchema>;
