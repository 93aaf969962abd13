/**
 * `pnpm bench inference-reports --repo DIR [--reports FILE] [--results bench/RESULTS.md]`: scope
 * inference on realistic issue reports with known fixes (bench/inference-reports/<name>.json:
 * stack traces, error messages, names, prose, each with the files its real fix changed). The
 * reports are planned as one backlog against the repository at the file's base commit (checked
 * out as `waves backtest` does: a sparse temporary worktree, the graph from the cache), with
 * `inference: suggest` and `inference: plan`, and judged file by file (`judgeReports`): Acc@1 and
 * Acc@5 (any, all), the share whose best candidate is the expected file, fence recall and the
 * share dispatched, per evidence kind too, beside the plain BM25 baseline of the same text —
 * against the goals of issue #13 §3 (Acc@5 ≥ 60 % and ≥ baseline + (100 − baseline) / 2; in plan
 * mode ≥ 50 % dispatched).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { filesToRead, judgeReports, loadRepo, PlanOptionsSchema, type IssueReport, type ReportsJudgement } from '../packages/planner/dist/index.js';
import { withBaseWorktree } from '../packages/cli/dist/sources/base-worktree.js';
import { writeResultBlock } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const values = benchArgs(
  {
    repo: { type: 'string' },
    reports: { type: 'string' },
    threshold: { type: 'string' },
    results: { type: 'string' },
    misses: { type: 'string', default: '12' },
  },
  'pnpm bench inference-reports --repo DIR [--reports bench/inference-reports/NAME.json] [--threshold X] [--results bench/RESULTS.md]',
  'repo',
);
const BENCH = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(values.repo);
const name = path.basename(root);
const file = values.reports ?? path.join(BENCH, 'inference-reports', `${name}.json`);
const data = JSON.parse(readFileSync(file, 'utf8')) as { repo: string; base: string; reports: (IssueReport & { commit: string; pr: number })[] };
execFileSync('git', ['cat-file', '-e', `${data.base}^{commit}`], { cwd: root });

const started = performance.now();
const cacheAt = { root, slot: 'backtest' };
const repo = await withBaseWorktree(root, data.base, (dir) => loadRepo(dir, { cacheAt }), (files) => filesToRead(files, cacheAt));
const loaded = performance.now();

const supported = 'inference' in PlanOptionsSchema.shape;
const modes = supported ? (['suggest', 'plan'] as const) : ([] as const);
const threshold = values.threshold === undefined ? {} : { inferenceThreshold: Number(values.threshold) };
const runs = new Map<string, { judgement: ReportsJudgement; ms: number }>();
for (const mode of modes) {
  const t = performance.now();
  const judgement = judgeReports(data.reports, repo, { inference: mode, ...threshold } as never);
  runs.set(mode, { judgement, ms: performance.now() - t });
}
if (!supported) runs.set('none', { judgement: judgeReports(data.reports, repo), ms: 0 });

const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(0)}%`);
const anyAll = (f: { any: number; all: number }) => `${pct(f.any)} / ${pct(f.all)}`;
const first = [...runs.values()][0]!.judgement;
const goalAt5 = Math.max(0.6, first.baseline.at5.any + (1 - first.baseline.at5.any) / 2);
const lines = [
  `### Scope inference on issue reports — ${name}`,
  '',
  `${data.reports.length} issue reports on ${data.repo} at \`${data.base.slice(0, 10)}\` (\`${path.relative(path.join(BENCH, '..'), file)}\`), each with the files its real fix changed; planned as one backlog with \`inference: suggest\` and \`plan\`${values.threshold === undefined ? '' : ` (threshold ${values.threshold})`}. Graph at the base in ${((loaded - started) / 1000).toFixed(1)} s; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}.${supported ? '' : ' **This build has no scope inference**: every report goes to triage.'}`,
  '',
  '| run | Acc@1 any / all | Acc@5 any / all | best = expected | dispatched | inferred fences: recall / complete | plan ms |',
  '|---|---|---|---|---|---|---|',
  ...[...runs].map(
    ([mode, { judgement: j, ms }]) =>
      `| ${mode} | ${anyAll(j.figures.at1)} | ${anyAll(j.figures.at5)} | ${pct(j.expectedFirst)} | ${j.dispatched} of ${j.reports.length} (${pct(j.dispatchedShare)}) | ${j.inferredDispatched === 0 ? '—' : `${pct(j.fence.recall)} / ${pct(j.fence.complete)}`} | ${ms.toFixed(0)} |`,
  ),
  `| BM25 baseline (title and body against file paths) | ${anyAll(first.baseline.at1)} | ${anyAll(first.baseline.at5)} | — | — | — | — |`,
  '',
];
const plan = runs.get('plan')?.judgement ?? first;
lines.push(
  `Goals (issue #13 §3): Acc@5 (any) ≥ ${pct(goalAt5)} (60 %, and half the baseline's misses): ${plan.figures.at5.any >= goalAt5 ? 'met' : '**not met**'} (${pct(plan.figures.at5.any)}); plan mode ≥ 50 % dispatched: ${plan.dispatchedShare >= 0.5 ? 'met' : '**not met**'} (${pct(plan.dispatchedShare)}).`,
  '',
  '| evidence kind | reports | Acc@1 any | Acc@5 any | best = expected | BM25 Acc@5 any |',
  '|---|---|---|---|---|---|',
  ...plan.byKind.map((k) => {
    const ids = new Set(plan.reports.filter((r) => r.kinds.includes(k.kind)).map((r) => r.id));
    const base = plan.reports.filter((r) => ids.has(r.id));
    const baseAt5 = base.length === 0 ? null : base.filter((r) => r.baselineHit !== null && r.baselineHit <= 5).length / base.length;
    return `| ${k.kind} | ${k.reports} | ${pct(k.figures.at1.any)} | ${pct(k.figures.at5.any)} | ${pct(k.expectedFirst)} | ${pct(baseAt5)} |`;
  }),
  '',
);
const misses = plan.reports.filter((r) => r.hit === null || r.hit > 5).slice(0, Number(values.misses));
if (misses.length > 0) {
  lines.push(`Misses (no fix file in the top 5)${misses.length < plan.reports.filter((r) => r.hit === null || r.hit > 5).length ? `, the first ${misses.length}` : ''}:`, '');
  for (const r of misses) {
    const report = data.reports.find((x) => x.id === r.id)!;
    const proposed = r.candidates.slice(0, 3).map((c) => `\`${c}\``).join(', ') || 'nothing';
    lines.push(`- ${r.id} (${r.kinds.join(', ')}) "${report.title.replace(/\|/g, '\\|')}": fix \`${r.fixFiles.join('`, `')}\`; proposed ${proposed}`);
  }
  lines.push('');
}
const table = lines.join('\n');
console.log(table);
if (values.results) writeResultBlock(values.results, `inference-reports:${name}`, table);
