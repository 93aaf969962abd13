/**
 * `waves compare BASELINE.json`: burndown against a saved `waves plan --json` — the planned
 * issues closed since, progress in percent, the waves the rest still need (re-planned now, with
 * the baseline's options) and the issues opened since.
 */
import path from 'node:path';
import { compareWithBaseline, ComparisonSchema, jsonPath, parseJsonText, PlanSchema, type BacklogIssue, type Comparison, type Plan } from '@waves/planner';
import { parseCommandArgs, renderFlags, type FlagSpecs, type ParsedArgs } from '../args.js';
import { UsageError } from '../errors.js';
import { readUserFile } from '../read-user-file.js';
import type { CliIo } from '../io.js';
import { safeText } from '../render/safe-text.js';
import { loadPlanInput, SOURCE_FLAGS } from './plan-input.js';

export const COMPARE_FLAGS: FlagSpecs = {
  ...SOURCE_FLAGS,
  json: { type: 'boolean', description: 'Print the comparison as JSON' },
};

export const COMPARE_HELP = `Usage: waves compare BASELINE.json [--from-issues FILE | --repo OWNER/NAME] [options]

Compares a plan saved with waves plan --json (the baseline) with the backlog now, read from the
same kind of source (pass the same --from-issues or --repo as when the baseline was made):
  - which issues the baseline put in waves are closed now (or gone from the backlog), and the
    progress in percent;
  - where each open one stands and how many waves the open ones still need: they are re-planned
    on the repository as it is now, with the leases held now and the baseline's --wave-size,
    --granularity and --contention-depth;
  - the issues opened since the baseline was made.
From GitHub, each planned issue missing from the open backlog is read to tell closed from gone,
and the open issues created since the baseline are read newest first.

Options:
${renderFlags(COMPARE_FLAGS)}

Examples:
  waves plan --json --from-issues backlog.json > baseline.json
  waves compare baseline.json --from-issues backlog.json
  waves compare baseline.json --repo acme/shop --json

Exit codes: 0 compared, 2 bad flag or a baseline that is not a saved plan, 1 failure.
`;

/** The largest baseline read: a saved plan of thousands of issues is a few megabytes. */
const MAX_BASELINE_BYTES = 64 * 1024 * 1024;

async function readBaseline(file: string, shown: string): Promise<Plan> {
  // A device or a huge file is refused, never read to the end (read-user-file.ts).
  const read = await readUserFile(file, MAX_BASELINE_BYTES);
  if (!read.ok) throw new UsageError(`${shown}: cannot read the baseline${read.reason === 'no such file' ? ' (ENOENT)' : `: it ${read.reason}`}`);
  const text = read.text;
  const json = parseJsonText(text);
  if (!json.ok) throw new UsageError(`${shown}: not valid JSON (${json.message}); save a baseline with waves plan --json > ${shown}`);
  const parsed = PlanSchema.safeParse(json.value);
  if (!parsed.success) {
    const problem = parsed.error.issues[0]!;
    throw new UsageError(`${shown}: not a plan saved by waves plan --json (${jsonPath(problem.path)}: ${problem.message})`);
  }
  return parsed.data;
}

/** The baseline's options where no flag sets them, so that the re-plan reads the same backlog. */
function withBaselineOptions(values: ParsedArgs['values'], baseline: Plan): ParsedArgs['values'] {
  return { ...values, top: values.top ?? String(baseline.options.top) };
}

export async function runCompare(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('compare', COMPARE_FLAGS, argv, true);
  if (values.help) {
    io.stdout(COMPARE_HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new UsageError(`compare: expected one baseline file, got ${positionals.length === 0 ? 'none' : JSON.stringify(positionals.join(' '))}; see waves compare --help`);
  }
  const shown = positionals[0]!;
  const baseline = await readBaseline(path.resolve(io.cwd, shown), shown);
  const { input, backlog, github } = await loadPlanInput(withBaselineOptions(values, baseline), io);
  let issues: BacklogIssue[] = backlog;
  if (github) {
    const known = new Set(backlog.map((i) => i.number));
    const missing = baseline.waves.flatMap((w) => w.issues.map((i) => i.number)).filter((n) => !known.has(n));
    const { readGithubChanges } = await import('../sources/github.js');
    const changes = await readGithubChanges({ ...github, warn: (message) => io.stderr(`waves: ${message}\n`) }, missing, baseline.generatedAt);
    issues = [...backlog, ...changes.filter((i) => !known.has(i.number))];
  }
  const comparison = compareWithBaseline({ baseline, issues, repo: input.repo, leases: input.leases, now: input.now, options: input.options });
  if (values.json) io.stdout(`${JSON.stringify(ComparisonSchema.parse(comparison), null, 2)}\n`);
  else io.stdout(renderComparison(comparison));
  return 0;
}

function list(numbers: readonly number[]): string {
  return numbers.map((n) => `#${n}`).join(' ');
}

export function renderComparison(c: Comparison): string {
  const lines: string[] = [];
  const head = (h: string | null) => (h ? ` at ${h.slice(0, 12)}` : '');
  lines.push(`Baseline: the plan of ${c.baseline.generatedAt}${head(c.baseline.head)} — ${c.baseline.planned} issue(s) in ${c.baseline.waves} wave(s)`);
  lines.push(`Now:      ${c.now.generatedAt}${head(c.now.head)}`);
  lines.push('');
  lines.push(`Progress: ${c.progress.closed} of ${c.progress.planned} planned issue(s) closed (${c.progress.percent}%)`);
  if (c.closed.length > 0) {
    lines.push('', `Closed (${c.closed.length}):`);
    for (const i of c.closed) lines.push(`  #${i.number} ${safeText(i.title)}${i.how === 'gone' ? ' — no longer in the backlog (closed, deleted or moved)' : ''}`);
  }
  if (c.open.length > 0) {
    lines.push('', `Still open (${c.open.length}):`);
    for (const i of c.open) {
      const now = i.now.bucket === 'wave' ? `wave ${i.now.wave}` : `${i.now.bucket}: ${safeText(i.now.reason ?? '')}`;
      lines.push(`  #${i.number} ${safeText(i.title)} — was wave ${i.baselineWave}, now ${now}`);
    }
  }
  lines.push('');
  if (c.remaining.waves === 0) lines.push(c.open.length === 0 ? 'Remaining: nothing — every planned issue is closed.' : 'Remaining: no wave can start now (see above).');
  else {
    lines.push(`Remaining: ${c.remaining.waves} wave(s)`);
    for (const w of c.remaining.plan) lines.push(`  wave ${w.index}${w.kind === 'serial_singleton' ? ' (serial)' : ''}: ${list(w.issues)}`);
  }
  lines.push('', c.new.length === 0 ? 'New since the baseline: none' : `New since the baseline (${c.new.length}):`);
  for (const i of c.new) lines.push(`  #${i.number} ${safeText(i.title)}${i.createdAt ? ` (opened ${i.createdAt})` : ''}`);
  return `${lines.join('\n')}\n`;
}
