/**
 * `pnpm bench backtest --root DIR [--last 300]`: how long `waves backtest --last N` takes on a real
 * repository — whole processes: cold (`--no-cache`: every source checked out and scanned), seeded
 * (the main cache of HEAD, as `waves plan` leaves it, and an empty backtest slot) and warm (the
 * slot filled by an earlier run), medians — where a warm run's time goes (in-process: the
 * history, the sparse worktree of the base, its graph, its removal, the backtest itself), and
 * the backtest's figures at each grade with the repository's own config (violations, waves ÷
 * reference, share dispatched).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { BacktestReportSchema, filesToRead, loadRepo, runBacktest, type BacktestReport } from '../packages/planner/dist/index.js';
import { readHistory } from '../packages/cli/dist/sources/git-history.js';
import { withBaseWorktree } from '../packages/cli/dist/sources/base-worktree.js';
import { cacheFile } from '../packages/planner/dist/graph/graph-cache.js';
import { measure, median } from './lib/measure.js';
import { writeResultBlock } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const values = benchArgs(
  {
    root: { type: 'string' },
    last: { type: 'string', default: '300' },
    runs: { type: 'string', default: '3' },
    grades: { type: 'string', default: 'files,dirs,title' },
    results: { type: 'string' },
    name: { type: 'string' },
  },
  'pnpm bench backtest --root DIR [--last 300] [--runs 3] [--grades files,dirs,title] [--results bench/RESULTS.md]',
  'root',
);
const BENCH = path.dirname(new URL(import.meta.url).pathname);
const BIN = path.join(BENCH, '..', 'packages/cli/bin/waves.js');
const root = path.resolve(values.root);
const name = values.name ?? path.basename(root);
const last = Number(values.last);
const runs = Number(values.runs);
const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
const cpu = execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], { encoding: 'utf8' }).trim();
// The backtest's own cache slot, whatever the cache version (it was v4 when this was written, and no seeded run was then seeded).
const clearSlot = () => rmSync(cacheFile(root, 'backtest'), { force: true });

// Whole processes: cold (no cache at all), seeded (the main cache of HEAD), then warm.
const args = ['backtest', '--root', root, '--last', String(last), '--json'];
const cold = measure('node', [BIN, ...args, '--no-cache'], root);
measure('node', [BIN, 'graph', '--root', root, '--json'], root); // the main cache, as waves plan leaves it
clearSlot();
const seeded = measure('node', [BIN, ...args], root); // fills the slot
const warm: number[] = [];
let peak = 0;
for (let r = 0; r < runs; r++) {
  const m = measure('node', [BIN, ...args], root);
  warm.push(m.seconds);
  peak = Math.max(peak, m.peakMiB ?? 0);
}
const report: BacktestReport = BacktestReportSchema.parse(JSON.parse(cold.stdout));
console.error(`  cold ${cold.seconds.toFixed(1)} s, seeded ${seeded.seconds.toFixed(1)} s, warm ${median(warm).toFixed(1)} s`);

// Where the time goes, in-process, warm.
const t = performance.now();
const history = await readHistory({ rootArg: root, root, until: 'HEAD', last });
const tHistory = performance.now();
let tCheckout = 0;
let tGraph = 0;
const cacheAt = { root, slot: 'backtest' };
const repo = await withBaseWorktree(
  root,
  history.base,
  async (dir) => {
    tCheckout = performance.now();
    const index = await loadRepo(dir, { cacheAt });
    tGraph = performance.now();
    return index;
  },
  (files) => filesToRead(files, cacheAt),
);
const tRemoved = performance.now();
const figures = new Map<string, BacktestReport>();
let tBacktest = 0;
for (const grade of values.grades!.split(',') as ('files' | 'dirs' | 'title')[]) {
  const started = performance.now();
  figures.set(grade, runBacktest({ commits: history.commits, repo, range: { base: history.base, until: history.until, since: null }, grade, maxFiles: 8 }));
  if (grade === 'files') tBacktest = performance.now() - started;
}
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const lines = [
  `### Backtest — ${name}`,
  '',
  `\`waves backtest --last ${last}\` at \`${head}\`: ${report.repo.commits} first-parent commits, base \`${report.repo.base}\` (${report.repo.files} files, ${report.repo.imports} imports), ${report.summary.issues} issues. ${cpu}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
  '',
  '| run | wall s | peak RSS MiB |',
  '|---|---|---|',
  `| cold (\`--no-cache\`: every source checked out and scanned) | ${cold.seconds.toFixed(1)} | ${cold.peakMiB?.toFixed(0) ?? '?'} |`,
  `| seeded (the main cache of HEAD, as \`waves plan\` leaves it) | ${seeded.seconds.toFixed(1)} | ${seeded.peakMiB?.toFixed(0) ?? '?'} |`,
  `| warm (cache slot filled), median of ${runs} | ${median(warm).toFixed(1)} (${Math.min(...warm).toFixed(1)}–${Math.max(...warm).toFixed(1)}) | ${peak.toFixed(0)} |`,
  '',
  `Where a warm run's time goes (in-process): history ${s(tHistory - t)}, worktree checkout ${s(tCheckout - tHistory)}, graph at the base ${s(tGraph - tCheckout)}, worktree removal ${s(tRemoved - tGraph)}, backtest (plan, re-plans, truth) ${s(tBacktest)}.`,
  '',
  '| grade | issues | violations | waves ÷ reference | dispatched |',
  '|---|---|---|---|---|',
  ...[...figures].map(
    ([grade, r]) =>
      `| ${grade} | ${r.summary.issues} | ${r.summary.violations} | ${r.summary.waves} ÷ ${r.summary.referenceWaves} = ${r.summary.wavesRatio === null ? '—' : r.summary.wavesRatio.toFixed(2)} | ${(r.summary.dispatchedShare * 100).toFixed(1)}% |`,
  ),
  '',
];
const table = lines.join('\n');
console.log(table);
if (values.results) writeResultBlock(values.results, `backtest:${name}`, table);
