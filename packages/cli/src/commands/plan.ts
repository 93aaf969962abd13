/**
 * `waves plan`: read the backlog and the repository, plan the waves, print them.
 * The CLI composes; every rule about waves lives in the planner.
 */
import path from 'node:path';
import { assertDirectory, loadRepo, planWaves, verifyPlan, type PlanInput, type PlanOptionsInput } from '@waves/planner';
import { enumFlag, intFlag, parseCommandArgs, renderFlags, stringFlag, type FlagSpecs } from '../args.js';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { renderPlanTable } from '../render/plan-table.js';
import { readIssuesFile } from '../sources/issues-file.js';

export const PLAN_FLAGS: FlagSpecs = {
  'from-issues': { type: 'string', value: 'FILE', description: 'Read the backlog from a JSON file (gh issue list --json …); - reads stdin' },
  root: { type: 'string', value: 'DIR', description: 'Repository to plan against', default: 'the current directory' },
  top: { type: 'string', value: 'N', description: 'Evaluate the N highest-ranked open issues', default: '10' },
  'wave-size': { type: 'string', value: 'N', description: 'Most issues in one wave', default: '4' },
  'max-waves': { type: 'string', value: 'N', description: 'Waves to plan; later ones go to deferred', default: '2' },
  granularity: { type: 'string', value: 'file|dir|package', description: 'Roll paths up to this before comparing them', default: 'file' },
  'contention-depth': { type: 'string', value: 'N', description: 'Import hops that make two issues conflict (0 = off)', default: '1' },
  json: { type: 'boolean', description: 'Print the plan as JSON (schemaVersion 1) and nothing else on stdout' },
  'no-cache': { type: 'boolean', description: 'Ignore and do not write the import-graph cache under .waves/cache/' },
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export const PLAN_HELP = `Usage: waves plan --from-issues FILE [options]

Ranks the open issues of the backlog, works out which files each one touches, and splits the
top ones into waves that agents can build side by side: no two issues of a wave touch the same
path or import each other's files, serial issues (root files) run alone, dependencies come first.

Options:
${renderFlags(PLAN_FLAGS)}

Examples:
  gh issue list --json number,title,body,labels,state,createdAt,url > issues.json
  waves plan --from-issues issues.json --top 10
  waves plan --from-issues issues.json --wave-size 3 --max-waves 3 --json > plan.json
  cat issues.json | waves plan --from-issues - --granularity dir

Exit codes: 0 planned, 2 bad flag or input, 1 failure.
`;

export async function runPlan(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('plan', PLAN_FLAGS, argv);
  if (values.help) {
    io.stdout(PLAN_HELP);
    return 0;
  }
  const options: PlanOptionsInput = {};
  const top = intFlag(values, 'top', 1);
  const waveSize = intFlag(values, 'wave-size', 1);
  const maxWaves = intFlag(values, 'max-waves', 1);
  const depth = intFlag(values, 'contention-depth', 0);
  const granularity = enumFlag(values, 'granularity', ['file', 'dir', 'package'] as const);
  if (depth !== undefined && depth > 8) throw new UsageError(`--contention-depth: expected at most 8, got ${depth}`);
  if (top !== undefined) options.top = top;
  if (waveSize !== undefined) options.waveSize = waveSize;
  if (maxWaves !== undefined) options.maxWaves = maxWaves;
  if (depth !== undefined) options.contentionDepth = depth;
  if (granularity !== undefined) options.granularity = granularity;

  const rootArg = stringFlag(values, 'root');
  const root = path.resolve(io.cwd, rootArg ?? '.');
  await assertDirectory(root).catch((error: Error) => {
    throw new UsageError(`--root ${rootArg ?? '.'}: ${error.message.replace(/^root [^:]*: /, '')}`);
  });
  const source = stringFlag(values, 'from-issues');
  if (source === undefined) {
    throw new UsageError('plan: no issue source; pass --from-issues FILE (or - for stdin); see waves plan --help');
  }
  const issues = await readIssuesFile(source, io);

  const progress = io.stderrIsTTY
    ? (done: number, total: number) => io.stderr(`\rwaves: reading imports ${done}/${total}${done === total ? '\n' : ''}`)
    : undefined;
  const repo = await loadRepo(root, { displayRoot: rootArg ?? '.', cache: !values['no-cache'], ...(progress ? { onProgress: progress } : {}) });
  const input: PlanInput = { issues, repo, options, now: io.now() };
  const plan = planWaves(input);
  const violations = verifyPlan(plan, input);
  if (violations.length > 0) {
    throw new Error(`the plan failed verification: ${violations.map((v) => v.message).join('; ')}`);
  }
  io.stdout(values.json ? `${JSON.stringify(plan, null, 2)}\n` : renderPlanTable(plan));
  return 0;
}
