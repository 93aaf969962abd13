/**
 * `waves plan`: read the backlog, the config and the repository, plan the waves, print them.
 * The CLI composes; every rule about waves lives in the planner.
 */
import { planWaves, verifyPlan } from '@waves/planner';
import { enumFlag, parseCommandArgs, renderFlags, type FlagSpecs } from '../args.js';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { renderPlanJson } from '../render/plan-json.js';
import { renderPlanMarkdown } from '../render/plan-markdown.js';
import { renderPlanMermaid } from '../render/plan-mermaid.js';
import { renderPlanTable } from '../render/plan-table.js';
import { loadPlanInput, SOURCE_FLAGS } from './plan-input.js';

const FORMATS = ['table', 'json', 'markdown', 'mermaid'] as const;

export const PLAN_FLAGS: FlagSpecs = {
  ...SOURCE_FLAGS,
  format: { type: 'string', value: 'table|json|markdown|mermaid', description: 'Output: tables, the JSON contract, a GitHub comment, or a Mermaid flowchart', default: 'table' },
  json: { type: 'boolean', description: 'Same as --format json: the plan (schemaVersion 1) and nothing else on stdout' },
};

export const PLAN_HELP = `Usage: waves plan [--from-issues FILE | --repo OWNER/NAME] [options]

Ranks the open issues of the backlog, works out which files each one touches, and splits the
top ones into waves that agents can build side by side: no two issues of a wave touch the same
path, import each other's files or both touch root files, serial issues (configured serial
paths) run alone, dependencies come first. The backlog is an issues file, or a GitHub repository (--repo, or the origin remote);
waves.config.json at the root sets lanes, serial paths, thresholds and defaults of these flags.

Options:
${renderFlags(PLAN_FLAGS)}

Examples:
  waves plan --repo acme/shop --top 10
  waves plan --repo acme/shop --label bug --label P1 --format markdown > plan.md
  gh issue list --json number,title,body,labels,state,createdAt,url > issues.json
  waves plan --from-issues issues.json --wave-size 3 --max-waves 3 --json > plan.json
  waves plan --from-issues issues.json --format mermaid

GitHub: the token comes from GITHUB_TOKEN or GH_TOKEN (public repositories work without one).
Requests and the token go only to api.github.com or to the API you name with --api-url or
GITHUB_API_URL (https; plain http only to 127.0.0.1, ::1 or localhost). A config's
defaults.apiUrl is refused until you name the same host with one of those. Each request waits
at most --api-timeout (30s); a timeout, a network fault or a 5xx is retried 3 times with backoff.
Exit codes: 0 planned, 2 bad flag, input, config or repository, 1 failure.
`;

export async function runPlan(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('plan', PLAN_FLAGS, argv);
  if (values.help) {
    io.stdout(PLAN_HELP);
    return 0;
  }
  const flagFormat = enumFlag(values, 'format', FORMATS);
  if (values.json && flagFormat !== undefined && flagFormat !== 'json') throw new UsageError(`--json and --format ${flagFormat} ask for two outputs; use one`);
  const { input, config, leasesUnknown } = await loadPlanInput(values, io);
  const format = values.json ? 'json' : (flagFormat ?? config.config.defaults?.format ?? 'table');
  const planned = planWaves(input);
  const plan = leasesUnknown === null ? planned : { ...planned, heldUnknown: leasesUnknown };
  const violations = verifyPlan(plan, input);
  if (violations.length > 0) throw new Error(`the plan failed verification: ${violations.map((v) => v.message).join('; ')}`);
  if (format === 'json') {
    for (const piece of renderPlanJson(plan)) {
      io.stdout(piece);
      await io.stdoutDrained?.();
    }
  } else if (format === 'markdown') io.stdout(renderPlanMarkdown(plan));
  else if (format === 'mermaid') io.stdout(renderPlanMermaid(plan));
  else io.stdout(renderPlanTable(plan));
  return 0;
}
