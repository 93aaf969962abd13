/**
 * `pnpm bench plan-conflicting --root DIR --before DIR [--sizes 500,1000,2000] [--runs 3]`: the
 * worst case of the partition — N issues that all conflict with each other (every one names the
 * same file, plus one file of its own), so the plan is N waves of one issue and N²/2 conflicts.
 *
 * For this checkout ("after") and `--before` (another built checkout of waves), alternating run
 * by run: a process that only plans (`tools/analyze-plan.mjs`: the seconds `analyzePlan` takes,
 * every wave kept, and the process's peak RSS, which is then the planner's), and one whole
 * `waves plan --top N --max-waves N --json` process (wall time and peak RSS; its output goes to a
 * file, whose size is reported). Medians (min–max). The two builds' plans must be the same, bar
 * `generatedAt`: the bench stops if they differ.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { loadRepo, type BacklogIssue } from '../packages/planner/dist/index.js';
import { measure, median } from './lib/measure.js';
import { writeResultBlock } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const values = benchArgs(
  {
    root: { type: 'string' },
    before: { type: 'string' },
    'before-label': { type: 'string' },
    sizes: { type: 'string', default: '500,1000,2000' },
    runs: { type: 'string', default: '3' },
    results: { type: 'string' },
  },
  'pnpm bench plan-conflicting --root DIR --before DIR [--before-label TEXT] [--sizes 500,1000,2000] [--runs 3] [--results bench/RESULTS.md]',
  'root',
);
if (!values.before) {
  console.error('plan-conflicting: --before DIR (a built checkout of waves to compare with) is required');
  process.exit(2);
}
const BENCH = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(values.root);
const runs = Number(values.runs);
const sizes = values.sizes!.split(',').map(Number);
const dirs = { before: path.resolve(values.before), after: path.join(BENCH, '..') };
const version = (dir: string) => execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
const labels = { before: values['before-label'] ?? `\`${version(dirs.before)}\``, after: `\`${version(dirs.after)}\`` };

const repo = await loadRepo(root);
const sources = repo.files.filter((f) => /\.[mc]?[jt]sx?$/.test(f) && !f.endsWith('.d.ts')).sort();
if (sources.length < 2) throw new Error(`${root}: needs at least two source files`);
const shared = sources[0]!;

function backlog(size: number): BacklogIssue[] {
  return Array.from({ length: size }, (_, i) => ({
    number: i + 1,
    title: `Issue ${i + 1} touching the shared file`,
    body: `- \`${shared}\`\n- \`${sources[1 + (i % (sources.length - 1))]}\``,
    labels: [],
    state: 'open' as const,
    createdAt: new Date(Date.UTC(2026, 0, 1) + (i + 1) * 60_000).toISOString(),
    url: null,
    sortOrder: null,
  }));
}

const side = mkdtempSync(path.join(tmpdir(), 'waves-bench-conflicting-'));
const span = (xs: number[], digits: number) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
const rows: string[] = [];
try {
  for (const size of sizes) {
    const issues = backlog(size);
    const file = path.join(side, `backlog-${size}.json`);
    writeFileSync(file, JSON.stringify(issues));
    const planSeconds = { before: [] as number[], after: [] as number[] };
    const planRss = { before: [] as number[], after: [] as number[] };
    const wall = { before: [] as number[], after: [] as number[] };
    const rss = { before: [] as number[], after: [] as number[] };
    const out = { before: path.join(side, 'before.json'), after: path.join(side, 'after.json') };
    let shape = '';
    for (let r = 0; r < runs; r++) {
      for (const which of ['before', 'after'] as const) {
        const planner = measure('node', [path.join(BENCH, 'tools/analyze-plan.mjs'), dirs[which], root, file, String(size)], root);
        const planned = JSON.parse(planner.stdout) as { seconds: number; waves: number; conflicts: number };
        planSeconds[which].push(planned.seconds);
        planRss[which].push(planner.peakMiB ?? NaN);
        shape = `${planned.waves} waves, ${planned.conflicts} conflicts`;
        const args = [path.join(dirs[which], 'packages/cli/bin/waves.js'), 'plan', '--from-issues', file, '--root', root, '--top', String(size), '--max-waves', String(size), '--json'];
        const m = measure('node', args, root, {}, out[which]);
        wall[which].push(m.seconds);
        rss[which].push(m.peakMiB ?? NaN);
      }
    }
    const same = (file: string) => readFileSync(file, 'utf8').replace(/"generatedAt": "[^"]*"/, '');
    if (same(out.before) !== same(out.after)) throw new Error(`${size} issues: the two builds' plans differ`);
    const mb = (statSync(out.after).size / 1e6).toFixed(0);
    rows.push(
      `| ${size} | ${shape} | ${span(planSeconds.before, 2)} | ${span(planSeconds.after, 2)} | ${span(planRss.before, 0)} | ${span(planRss.after, 0)} | ${span(wall.before, 2)} | ${span(wall.after, 2)} | ${span(rss.before, 0)} | ${span(rss.after, 0)} | ${mb} |`,
    );
    console.error(`  ${rows.at(-1)}`);
  }
} finally {
  rmSync(side, { recursive: true, force: true });
}

const table = [
  `### Planning issues that all conflict — ${path.basename(root)}`,
  '',
  `N generated issues, each naming \`${shared}\` and one other source file, so every pair conflicts (by path, and some by import too): N waves of one issue. Before: ${labels.before}; after: ${labels.after}. Per build, alternating, ${runs} run(s), medians (min–max): a process that only plans (\`analyzePlan\`, every wave kept: its seconds, and the process's peak RSS), and one whole \`waves plan --top N --max-waves N --json\` process (its output to a file). The two builds' plans are identical (checked). ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} at the end.`,
  '',
  '| issues | plan | `analyzePlan` s before | after | planner peak RSS MiB before | after | `waves plan --json` s before | after | its peak RSS MiB before | after | JSON MB |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows,
  '',
].join('\n');
console.log(table);
if (values.results) writeResultBlock(values.results, `plan-conflicting:${path.basename(root)}`, table);
