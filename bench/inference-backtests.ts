/**
 * `pnpm bench inference-backtests --repos DIR,DIR… [--last 300] [--runs title:plan,dirs:suggest,dirs:plan]`:
 * `waves backtest` with scope inference on several repositories (each with its own, default,
 * config), one table per measure for bench/RESULTS.md, against the goals of issues #13 §3 and #14 §4:
 *
 * - **Localisation** (#13 §3, titles only): file-level Acc@1 and Acc@5 (any / all) of the plan's
 *   candidates over every locatable issue, beside the plain BM25 baseline of the same run; goal
 *   Acc@5 (any) ≥ 60 % and ≥ baseline + (100 − baseline) / 2.
 * - **Plan mode** (#13 §3): dispatched share ≥ 50 % and violations ≤ 5 % of the dispatched issues;
 *   fence recall of the inferred fences.
 * - **Live fences** (#14 §4): the plan replayed with every write outside a fence decided by the
 *   lease rule — granted, refused, needing a person — and the collisions left (goal 0 at `dirs`
 *   and at `title` with inference in plan mode), beside the plan's own violations; refusals
 *   (refused or needing a person) ≤ 5 % of the dispatched issues at `dirs`.
 *
 * The report's fields are read as `waves backtest --json` prints them (backtest schema 2 with
 * `localisation` and `liveFences`). Where inference missed, a few titles and what it proposed are
 * listed, for tuning.
 */
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { BacktestReport } from '../packages/planner/dist/index.js';
import { measure } from './lib/measure.js';
import { writeResultBlock } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const values = benchArgs(
  {
    repos: { type: 'string' },
    last: { type: 'string', default: '300' },
    runs: { type: 'string', default: 'title:plan,dirs:suggest,dirs:plan' },
    threshold: { type: 'string' },
    label: { type: 'string', default: 'Scope inference and live fences' },
    results: { type: 'string' },
    key: { type: 'string', default: 'inference-backtests' },
    misses: { type: 'string', default: '3' },
  },
  'pnpm bench inference-backtests --repos DIR,DIR… [--last 300] [--runs GRADE:MODE,…] [--threshold X] [--results bench/RESULTS.md] [--key inference-backtests]',
  'repos',
);
const BENCH = path.dirname(new URL(import.meta.url).pathname);
const BIN = path.join(BENCH, '..', 'packages/cli/bin/waves.js');
/** Each run: a grade and an inference mode (`title:plan`: titles only, inference in plan mode). */
const runs = values.runs!.split(',').map((spec) => {
  const [grade, mode] = spec.split(':');
  return { grade: grade!, mode: mode ?? 'suggest' };
});
const last = Number(values.last);
const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)}%`);

const localisationRows: string[] = [];
const planRows: string[] = [];
const fenceRows: string[] = [];
const missLines: string[] = [];
let missed = 0;
for (const dir of values.repos.split(',')) {
  const root = path.resolve(dir);
  const name = path.basename(root);
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  for (const { grade, mode } of runs) {
    const args = [BIN, 'backtest', '--root', root, '--last', String(last), '--grade', grade, '--json', '--inference', mode];
    if (values.threshold !== undefined) args.push('--inference-threshold', values.threshold);
    const run = measure('node', args, root);
    const r = JSON.parse(run.stdout) as BacktestReport;
    const { summary, localisation: l, liveFences: f } = r;
    console.error(`  ${name} ${grade} ${mode}: ${run.seconds.toFixed(1)} s`);
    const at = `${name} | ${grade} | ${mode} | \`${head.slice(0, 10)}\` | ${summary.issues}`;

    // Localisation (titles only is the goal; dirs is shown).
    const goalMet = l.all.at5.any >= l.goalAt5;
    if (grade === 'title' && !goalMet) missed++;
    localisationRows.push(
      `| ${at} | ${l.all.withCandidates} | ${pct(l.all.at1.any)} / ${pct(l.all.at1.all)} | ${pct(l.all.at5.any)} / ${pct(l.all.at5.all)} | ${pct(l.baseline.at1.any)} / ${pct(l.baseline.at1.all)} | ${pct(l.baseline.at5.any)} / ${pct(l.baseline.at5.all)} | ${pct(l.goalAt5)}${grade === 'title' ? (goalMet ? ' ✓' : ' ✗') : ''} |`,
    );

    // Plan mode.
    const violationShare = summary.dispatched === 0 ? 0 : summary.violations / summary.dispatched;
    const planMet = summary.dispatchedShare >= 0.5 && violationShare <= 0.05;
    if (grade === 'title' && mode === 'plan' && !planMet) missed++;
    planRows.push(
      `| ${at} | ${summary.dispatched} (${pct(summary.dispatchedShare)}) | ${l.inferredDispatched} | ${summary.violations} (${pct(violationShare)} of dispatched) | ${l.inferredViolations} | ${summary.waves} ÷ ${summary.referenceWaves} | ${pct(l.fence.recall)} / ${pct(l.fence.complete)} |${grade === 'title' && mode === 'plan' ? (planMet ? ' ✓' : ' ✗') : ''}`,
    );

    // Live fences.
    if (f) {
      const stops = f.refused + f.person;
      const refusalShare = summary.dispatched === 0 ? 0 : stops / summary.dispatched;
      const refusedShare = summary.dispatched === 0 ? 0 : f.refused / summary.dispatched;
      const collisionsMet = f.collisions === 0;
      const refusalMet = grade !== 'dirs' || refusedShare <= 0.05;
      if (!collisionsMet || !refusalMet) missed++;
      fenceRows.push(
        `| ${at} | ${summary.dispatched} | ${f.writes} | ${f.inFence} | ${f.granted} | ${f.refused} | ${f.person} | ${pct(refusedShare)}${grade === 'dirs' ? (refusedShare <= 0.05 ? ' ✓' : ' ✗') : ''} | ${pct(refusalShare)} | ${f.issuesStopped} (${pct(summary.dispatched === 0 ? 0 : f.issuesStopped / summary.dispatched)}) | ${f.planViolations} | ${f.collisions}${collisionsMet ? ' ✓' : ' ✗'} |`,
      );
    }

    // Where inference missed: a few titles and what it proposed.
    if (grade === 'title') {
      const misses = r.issues.filter((i) => i.truthFiles.length > 0 && i.candidates.length > 0 && (i.candidateHit === null || i.candidateHit > 5)).slice(0, Number(values.misses));
      const none = r.issues.filter((i) => i.truthFiles.length > 0 && i.candidates.length === 0).slice(0, 2);
      for (const i of misses) {
        missLines.push(`- ${name}: "${i.title.replace(/\|/g, '\\|')}" — changed \`${i.truthFiles.slice(0, 2).join('`, `')}\`${i.truthFiles.length > 2 ? ', …' : ''}; proposed \`${i.candidates.slice(0, 3).join('`, `')}\``);
      }
      for (const i of none) missLines.push(`- ${name}: "${i.title.replace(/\|/g, '\\|')}" — changed \`${i.truthFiles.slice(0, 2).join('`, `')}\`; no candidate`);
    }
  }
}

const lines = [
  `${values.label}: \`waves backtest --last ${last} --grade G --inference M\`${values.threshold === undefined ? '' : ` with \`--inference-threshold ${values.threshold}\``} for each grade:mode of ${runs.map((r) => `\`${r.grade}:${r.mode}\``).join(', ')}, each repository's own (default) config; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}. ✓/✗: a goal met or missed.`,
  '',
  '**Localisation** (issue #13 §3): file level, over every issue whose commit edits or deletes a code file that is not a test (no candidate: a miss). Goal at the title grade: Acc@5 (any) ≥ the last column. At the dirs grade the issue names its directories, and inference proposes only files beyond them (what its title names elsewhere), so its Acc is not a localisation figure there; the BM25 baseline there matches the directory names too.',
  '',
  '| repository | grade | inference | commit | issues | with candidates | Acc@1 any / all | Acc@5 any / all | BM25 Acc@1 any / all | BM25 Acc@5 any / all | goal Acc@5 |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...localisationRows,
  '',
  `**Plan mode** (issue #13 §3): goal at the title grade ≥ 50 % dispatched, violations ≤ 5 % of the dispatched issues. Fence recall: the share of an inferred issue's true files inside its fence (mean / every file).`,
  '',
  '| repository | grade | inference | commit | issues | dispatched | on inferred fences | violations | involving an inferred fence | waves ÷ ref. | fence recall / complete |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...planRows,
  '',
  '**Live fences** (issue #14 §4): each wave replayed, every run writing its commit\'s files in turn (files sorted, round robin), a write outside its fence decided by `decideLeases` with the plan\'s contention depth and serial paths. Refused ÷ dispatched: the goal of ≤ 5 % at `dirs`; stopped: the writes refused plus those needing a person (a root file, a serial path or a control file, which a live fence never grants a parallel run), ÷ dispatched; issues stopped: the dispatched issues with at least one such write. Collisions: pairs of runs whose writes still truly conflict (goal 0).',
  '',
  '| repository | grade | inference | commit | issues | dispatched | writes | in fence | granted | refused | needs a person | refused ÷ dispatched | stopped ÷ dispatched | issues stopped | plan violations | collisions |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...fenceRows,
  '',
];
if (missLines.length > 0) lines.push('Where inference missed at the title grade (a few per repository, for tuning):', '', ...missLines, '');
const table = lines.join('\n');
console.log(table);
console.error(missed === 0 ? 'every goal met' : `${missed} goal(s) missed`);
if (values.results) writeResultBlock(values.results, values.key!, table);
