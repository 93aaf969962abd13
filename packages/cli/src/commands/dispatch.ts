/**
 * `waves dispatch --dry-run`: plans like `waves plan`, then shows the exact command that would
 * start one agent per issue — shell-quoted, so it can be pasted and runs exactly that argv — with
 * the tier, the model and the rule that chose it. Nothing is started, written or leased.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { agentTemplate, AgentTemplateError, buildDispatch, DEFAULT_PROMPT_TEMPLATE } from '@waves/dispatch';
import { BUILTIN_SERIAL_GLOBS, ConfigError, planWaves, verifyPlan } from '@waves/planner';
import { intFlag, parseCommandArgs, renderFlags, stringFlag, type FlagSpecs } from '../args.js';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { renderDispatch, dispatchJson } from '../render/dispatch-preview.js';
import { loadPlanInput, SOURCE_FLAGS } from './plan-input.js';

export const DISPATCH_FLAGS: FlagSpecs = {
  'dry-run': { type: 'boolean', description: 'Show the commands; start, write and lease nothing' },
  agent: { type: 'string', value: 'NAME', description: 'opencode, claude, codex, or an agent of the config', default: 'opencode' },
  model: { type: 'string', value: 'M', description: 'One model for every agent of the run (overrides routing)' },
  worktree: { type: 'boolean', description: 'One git worktree per issue, on branch waves/issue-N' },
  base: { type: 'string', value: 'REF', description: 'With --worktree: the commit the branches start from', default: 'HEAD' },
  wave: { type: 'string', value: 'K', description: 'The wave to dispatch', default: '1' },
  'all-waves': { type: 'boolean', description: 'Every planned wave' },
  json: { type: 'boolean', description: 'The plan with a `command` (argv) on each issue and `commands` per wave' },
  ...SOURCE_FLAGS,
};

export const DISPATCH_HELP = `Usage: waves dispatch --dry-run [--agent NAME] [--model M] [--worktree] [--wave K | --all-waves] [plan flags]

Plans the backlog as waves plan does, then shows, per wave, the exact command that would start
one coding agent per issue: the agent's argv shell-quoted for POSIX shells (paste it and it runs
exactly that argv), the worker prompt it carries (the issue quoted as data, its fence, the
paths it must not touch, the verification commands, the receipt to return), the tier and model
routing chose and the rule that chose them. With --worktree, also the git worktree add of each.

Options:
${renderFlags(DISPATCH_FLAGS)}

Examples:
  waves dispatch --dry-run --top 10 --from-issues examples/backlog.json --root examples/shop
  waves dispatch --dry-run --agent claude --model claude-sonnet-4-5 --all-waves
  waves dispatch --dry-run --agent mytool --worktree --json > dispatch.json

Agents: opencode (opencode run --title … --model … PROMPT), claude (claude --print --model …
PROMPT), codex (codex exec --model … PROMPT), or any agent of waves.config.json
("agents": {"mytool": {"command": ["mytool", "--title", "{title}", "{prompt}"]}}).
Exit codes: 0 shown, 2 bad flag, input or config, 1 failure.
`;

export async function runDispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('dispatch', DISPATCH_FLAGS, argv);
  if (values.help) {
    io.stdout(DISPATCH_HELP);
    return 0;
  }
  if (!values['dry-run']) {
    throw new UsageError('dispatch: spawning agents is not available in this version; pass --dry-run to preview the commands');
  }
  const wave = intFlag(values, 'wave', 1);
  if (wave !== undefined && values['all-waves']) throw new UsageError('--wave and --all-waves pick the waves twice; use one');
  // A dry run writes nothing, not even the graph cache.
  const { input, config, root } = await loadPlanInput(values, io, { writeCache: false });
  let agent;
  try {
    agent = agentTemplate(stringFlag(values, 'agent') ?? 'opencode', config.config.agents ?? {});
  } catch (error) {
    if (error instanceof AgentTemplateError) throw new UsageError(`--agent: ${error.message}`);
    throw error;
  }
  let promptTemplate = config.config.prompt?.template ?? DEFAULT_PROMPT_TEMPLATE;
  if (config.config.prompt?.file) {
    try {
      promptTemplate = await readFile(path.resolve(root, config.config.prompt.file), 'utf8');
    } catch (error) {
      throw new ConfigError(`config prompt.file ${config.config.prompt.file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  const plan = planWaves(input);
  const violations = verifyPlan(plan, input);
  if (violations.length > 0) throw new Error(`the plan failed verification: ${violations.map((v) => v.message).join('; ')}`);
  if (wave !== undefined && !plan.waves.some((w) => w.index === wave)) {
    throw new UsageError(`--wave ${wave}: the plan has ${plan.waves.length} wave(s)`);
  }
  const packages = input.repo.packages.filter((p) => p.dir !== '');
  let waves;
  try {
    waves = buildDispatch(plan, {
      agent,
      routing: config.config.routing,
      modelOverride: stringFlag(values, 'model') ?? null,
      promptTemplate,
      verify: config.config.verify,
      issues: new Map(input.issues.map((i) => [i.number, i])),
      protectedPaths: [...BUILTIN_SERIAL_GLOBS.map((g) => g.replace(/^\*\*\//, '')), ...(config.config.serial ?? [])],
      packagesOf: (paths) => [...new Set(paths.flatMap((p) => packages.filter((pkg) => p === `${pkg.dir}/` || p.startsWith(`${pkg.dir}/`)).map((pkg) => pkg.name)))].sort(),
      worktree: values.worktree ? { base: stringFlag(values, 'base') ?? 'HEAD', dir: '.waves/worktrees' } : null,
      waves: values['all-waves'] ? 'all' : [wave ?? 1],
    });
  } catch (error) {
    if (error instanceof AgentTemplateError) throw new ConfigError(`config agents: ${error.message}`);
    throw error;
  }
  if (values.json) io.stdout(`${JSON.stringify(dispatchJson(plan, waves), null, 2)}\n`);
  else io.stdout(renderDispatch(plan, waves, { agent: agent.name, modelOverride: stringFlag(values, 'model') ?? null, terminal: io.stdoutIsTTY ?? false }));
  return 0;
}
