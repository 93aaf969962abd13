/**
 * `pnpm bench inference-speed --root DIR --before DIR [--runs 5] [--issues 1000]`: what scope
 * inference costs (issue #13 §4).
 *
 * 1. The name and literal index on a graph build: `waves graph --no-cache` (cold) and `waves
 *    graph` with its cache filled (warm), whole processes, of this checkout ("after", with the
 *    index) and of `--before` (another built checkout of waves without it, main before the
 *    index), alternating run by run after one warm-up each, medians. Goals: cold ≤ +30 %, warm
 *    +0 (the symbols cache is read only when inference needs it, which `waves graph` never does);
 *    beside them, a cold plan of one issue naming no files (the scan counting every file's words,
 *    which `waves graph` leaves out, and the inference), a cost without a goal; then, in-process,
 *    what reading the symbols adds to a warm load for a plan that needs them.
 * 2. Inference for N issues: the last N first-parent commit subjects of the repository (titles,
 *    as a backlog carries them) planned in-process with `inference: suggest` and with `off`
 *    (every issue evaluated, every wave kept), the graph from the cache; medians; the
 *    difference is inference. Goal: under 2 s for 1,000.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { analyzePlan, loadRepo, PlanOptionsSchema, type BacklogIssue } from '../packages/planner/dist/index.js';
import { measure, median } from './lib/measure.js';
import { writeResultBlock } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const values = benchArgs(
  {
    root: { type: 'string' },
    before: { type: 'string' },
    'before-label': { type: 'string' },
    runs: { type: 'string', default: '5' },
    issues: { type: 'string', default: '1000' },
    results: { type: 'string' },
  },
  'pnpm bench inference-speed --root DIR [--before DIR [--before-label TEXT]] [--runs 5] [--issues 1000] [--results bench/RESULTS.md]',
  'root',
);
const BENCH = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(values.root);
const name = path.basename(root);
const runs = Number(values.runs);
const count = Number(values.issues);
const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
const sources = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 })
  .split('\n')
  .filter((f) => /\.[cm]?[jt]sx?$/.test(f)).length;
const cpu = execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], { encoding: 'utf8' }).trim();
const lines: string[] = [`### Scope inference: cost — ${name}`, ''];

// 1. The index on the graph build.
if (values.before) {
  const builds = { before: path.join(path.resolve(values.before), 'packages/cli/bin/waves.js'), after: path.join(BENCH, '..', 'packages/cli/bin/waves.js') };
  const version = (dir: string) => execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const cold: Record<string, number[]> = { before: [], after: [] };
  const warm: Record<string, number[]> = { before: [], after: [] };
  const rss: Record<string, number[]> = { before: [], after: [] };
  for (const which of ['before', 'after'] as const) measure('node', [builds[which], 'graph', '--root', root, '--no-cache', '--json'], root); // warm-up
  for (let r = 0; r < runs; r++) {
    for (const which of ['before', 'after'] as const) {
      const m = measure('node', [builds[which], 'graph', '--root', root, '--no-cache', '--json'], root);
      cold[which]!.push(m.seconds);
      rss[which]!.push(m.peakMiB ?? 0);
    }
  }
  for (const which of ['before', 'after'] as const) {
    measure('node', [builds[which], 'graph', '--root', root, '--json'], root); // fills this version's cache
    for (let r = 0; r < runs; r++) warm[which]!.push(measure('node', [builds[which], 'graph', '--root', root, '--json'], root).seconds);
  }
  // A warm plan whose issues all name their files (in code spans), which needs no inference.
  const side = mkdtempSync(path.join(tmpdir(), 'waves-bench-'));
  const named = path.join(side, 'named.json');
  const picked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n').filter((f) => /\.[jt]sx?$/.test(f) && !f.includes('`'));
  const step = Math.max(1, Math.floor(picked.length / 40));
  writeFileSync(named, JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ number: i + 1, title: `Fix the bug in this file (${i + 1})`, body: `In \`${picked[i * step] ?? picked[0]}\`.`, state: 'OPEN', labels: [] }))));
  const planArgs = (which: 'before' | 'after') => [builds[which], 'plan', '--from-issues', named, '--root', root, '--json'];
  const warmPlan: Record<string, number[]> = { before: [], after: [] };
  for (const which of ['before', 'after'] as const) measure('node', planArgs(which), root); // warm-up
  for (let r = 0; r < runs; r++) for (const which of ['before', 'after'] as const) warmPlan[which]!.push(measure('node', planArgs(which), root).seconds);
  // A cold plan of one issue that names no files: the scan counts every file's words, and the issue is inferred (before: no index, no inference — it goes to triage).
  const vague = path.join(side, 'vague.json');
  writeFileSync(vague, JSON.stringify([{ number: 1, title: 'The save button does nothing after an error', body: '', state: 'OPEN', labels: [] }]));
  const coldPlan: Record<string, number[]> = { before: [], after: [] };
  for (let r = 0; r < runs; r++) for (const which of ['before', 'after'] as const) coldPlan[which]!.push(measure('node', [builds[which], 'plan', '--from-issues', vague, '--root', root, '--no-cache', '--json'], root).seconds);
  rmSync(side, { recursive: true, force: true });
  const ratio = (key: Record<string, number[]>) => median(key.after!) / median(key.before!);
  const s = (xs: number[]) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
  let beforeVersion = values['before-label'] ?? '?';
  if (values['before-label'] === undefined) {
    try {
      beforeVersion = version(path.resolve(values.before));
    } catch {
      beforeVersion = path.basename(path.resolve(values.before));
    }
  }
  lines.push(
    `\`waves graph\` on ${name} at \`${head.slice(0, 10)}\` (${sources} source files): whole processes, ${runs} runs each, alternating after a warm-up, medians (min–max) in seconds. Before: waves without the index (\`${beforeVersion}\`); after: this checkout. ${cpu}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores as the builds ended (the machine is shared: ratios of alternating runs hold better than seconds).`,
    '',
    '| build | before s | after s | after ÷ before | goal | met? |',
    '|---|---|---|---|---|---|',
    `| cold (\`--no-cache\`) | ${s(cold.before!)} | ${s(cold.after!)} | ${ratio(cold).toFixed(2)} | ≤ 1.30 | ${ratio(cold) <= 1.3 ? 'yes' : '**no**'} |`,
    `| warm (cache filled) | ${s(warm.before!)} | ${s(warm.after!)} | ${ratio(warm).toFixed(2)} | ≈ 1.00 (nothing added) | ${ratio(warm) <= 1.1 ? 'yes' : '**no**'} |`,
    `| warm \`waves plan\`, 40 issues naming their files | ${s(warmPlan.before!)} | ${s(warmPlan.after!)} | ${ratio(warmPlan).toFixed(2)} | ≈ 1.00 (nothing added) | ${ratio(warmPlan) <= 1.1 ? 'yes' : '**no**'} |`,
    `| peak RSS MiB, cold | ${median(rss.before!).toFixed(0)} | ${median(rss.after!).toFixed(0)} | ${(median(rss.after!) / median(rss.before!)).toFixed(2)} | — | — |`,
    `| cold \`waves plan\` (\`--no-cache\`), 1 issue naming no files: the words counted in the scan, and inference | ${s(coldPlan.before!)} | ${s(coldPlan.after!)} | ${ratio(coldPlan).toFixed(2)} | — (once per file content: cached after) | — |`,
    '',
  );
  console.error(`  index: cold ×${ratio(cold).toFixed(2)}, warm ×${ratio(warm).toFixed(2)}, warm plan ×${ratio(warmPlan).toFixed(2)}, cold inferring plan ×${ratio(coldPlan).toFixed(2)}`);
}

// 2. Inference for N issues, in-process.
const supported = 'inference' in PlanOptionsSchema.shape;
const repo = await loadRepo(root);
// What a warm plan that does need inference adds: reading the symbols cache (a plan that needs none never reads it).
if (repo.readSymbols) {
  const cacheDir = path.join(root, '.waves', 'cache');
  const size = (prefix: string) => {
    const file = readdirSync(cacheDir).find((f) => f.startsWith(prefix) && f.endsWith('.json') && !f.includes('-backtest'));
    return file ? statSync(path.join(cacheDir, file)).size / 1e6 : NaN;
  };
  const loads: number[] = [];
  const reads: number[] = [];
  for (let r = 0; r < 5; r++) {
    let t = performance.now();
    const warmRepo = await loadRepo(root, { history: false });
    loads.push(performance.now() - t);
    t = performance.now();
    warmRepo.readSymbols?.();
    reads.push(performance.now() - t);
  }
  lines.push(
    `Caches of this checkout: the graph cache ${size('graph-v').toFixed(1)} MB, read on every run; the symbols cache ${size('symbols-v').toFixed(1)} MB, read only by a plan that needs inference (an issue naming no files, or frames, names, packages or messages to resolve). In-process, warm, medians of 5: \`loadRepo\` ${(median(loads) / 1000).toFixed(2)} s, and reading the symbols when inference asks ${(median(reads) / 1000).toFixed(2)} s more (×${((median(loads) + median(reads)) / median(loads)).toFixed(2)} for a warm plan that needs inference).`,
    '',
  );
  console.error(`  symbols: ${(median(reads) / 1000).toFixed(2)} s on a warm load of ${(median(loads) / 1000).toFixed(2)} s`);
}
const subjects = execFileSync('git', ['log', '--first-parent', '--no-merges', `-${count}`, '--format=%s'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 })
  .split('\n')
  .filter((s) => s !== '');
const issues: BacklogIssue[] = subjects.map((title, i) => ({ number: i + 1, title, body: '', labels: [], state: 'open', createdAt: null, url: null, sortOrder: i }));
const plan = (inference: string | null) => {
  const options = { top: issues.length, maxWaves: issues.length, ...(inference === null ? {} : { inference }) };
  // Fresh issue objects each run: the planner keeps the candidates it found per issue object (a
  // plan's verification asks again), which would make every run after the first free.
  const fresh = issues.map((issue) => ({ ...issue }));
  const t = performance.now();
  const analysis = analyzePlan({ issues: fresh, repo, options: options as never, now: 0 });
  return { ms: performance.now() - t, analysis };
};
const off: number[] = [];
const on: number[] = [];
let withCandidates = 0;
for (let r = 0; r < 3; r++) {
  off.push(plan(supported ? 'off' : null).ms);
  if (supported) {
    const run = plan('suggest');
    on.push(run.ms);
    withCandidates = [...run.analysis.plan.triage, ...run.analysis.plan.waves.flatMap((w) => w.issues)].filter(
      (entry) => ((entry as { candidates?: unknown[] }).candidates ?? []).length > 0,
    ).length;
  }
}
if (supported) {
  const cost = median(on) - median(off);
  lines.push(
    `Inference for ${issues.length} issues (the last ${issues.length} commit subjects of ${name}, titles only), planned in-process with every issue evaluated, graph from the cache, medians of 3: \`inference: off\` ${(median(off) / 1000).toFixed(2)} s, \`suggest\` ${(median(on) / 1000).toFixed(2)} s — inference ${(cost / 1000).toFixed(2)} s (${withCandidates} issues given candidates); goal < 2 s: ${cost < 2000 ? 'met' : '**not met**'}.`,
    '',
  );
  console.error(`  inference: ${(cost / 1000).toFixed(2)} s for ${issues.length} issues`);
} else {
  lines.push(`This build has no scope inference: planning ${issues.length} titles takes ${(median(off) / 1000).toFixed(2)} s in-process without it.`, '');
}
const table = lines.join('\n');
console.log(table);
if (values.results) writeResultBlock(values.results, `inference-speed:${name}`, table);
