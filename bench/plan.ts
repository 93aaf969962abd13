/**
 * `pnpm bench plan --root DIR`: plans synthetic backlogs of 100, 1,000 and 5,000 issues against a
 * real repository and records how the time grows — in-process (`analyzePlan` and `verifyPlan`,
 * median of several runs) with the default two waves and with every wave planned, and as a whole
 * `waves plan --top N --json` process. Issues name 1–3 random source files of the repository, a
 * tenth depend on an earlier issue, a third carry a priority label: the mix the planner sees.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { analyzePlan, loadRepo, verifyPlan, type BacklogIssue, type PlanInput } from '../packages/planner/dist/index.js';
import { measure, median } from './lib/measure.js';
import { writeResultBlock } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const values = benchArgs(
  {
    root: { type: 'string' },
    sizes: { type: 'string', default: '100,1000,5000' },
    runs: { type: 'string', default: '3' },
    results: { type: 'string' },
    name: { type: 'string' },
  },
  'pnpm bench plan --root DIR [--sizes 100,1000,5000] [--runs 3] [--results bench/RESULTS.md]',
  'root',
);
const BENCH = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(values.root);
const name = values.name ?? path.basename(root);
const runs = Number(values.runs);
const out = path.join(BENCH, '.out', name);
mkdirSync(out, { recursive: true });

const repo = await loadRepo(root);
const sources = repo.files.filter((f) => /\.[mc]?[jt]sx?$/.test(f) && !f.endsWith('.d.ts'));

function backlog(size: number): BacklogIssue[] {
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: size }, (_, i) => {
    const number = i + 1;
    const paths = Array.from({ length: 1 + Math.floor(random() * 3) }, () => sources[Math.floor(random() * sources.length)]!);
    const dependency = random() < 0.1 && number > 1 ? `\nDepends on #${1 + Math.floor(random() * (number - 1))}` : '';
    return {
      number,
      title: `Synthetic issue ${number}`,
      body: `${paths.map((p) => `- \`${p}\``).join('\n')}${dependency}`,
      labels: random() < 0.3 ? [['P0', 'P1', 'P2', 'P3'][Math.floor(random() * 4)]!] : [],
      state: 'open' as const,
      createdAt: new Date(Date.UTC(2026, 0, 1) + number * 60_000).toISOString(),
      url: null,
      sortOrder: null,
    };
  });
}

const rows: string[] = [];
for (const size of values.sizes!.split(',').map(Number)) {
  const issues = backlog(size);
  const cell = (maxWaves: number) => {
    const input: PlanInput = { issues, repo, options: { top: size, maxWaves }, now: '2026-11-29T00:00:00Z' };
    const planMs: number[] = [];
    const verifyMs: number[] = [];
    let summary = '';
    for (let r = 0; r < runs; r++) {
      let t = performance.now();
      const { plan } = analyzePlan(input);
      planMs.push(performance.now() - t);
      t = performance.now();
      const violations = verifyPlan(plan, input);
      verifyMs.push(performance.now() - t);
      if (violations.length > 0) throw new Error(`plan of ${size} issues failed verification: ${violations[0]!.message}`);
      summary = `${plan.summary.dispatchable} in ${plan.summary.waves} waves, ${plan.conflicts.length} conflicts listed, optimal ${plan.summary.optimal}`;
    }
    return { plan: median(planMs), verify: median(verifyMs), summary };
  };
  const two = cell(2);
  const all = cell(1_000_000);
  const file = path.join(out, `backlog-${size}.json`);
  writeFileSync(file, JSON.stringify(issues));
  const cli = measure('node', [path.join(BENCH, '..', 'packages/cli/bin/waves.js'), 'plan', '--from-issues', file, '--root', root, '--top', String(size), '--json'], root);
  rows.push(
    `| ${size} | ${two.plan.toFixed(0)} | ${two.verify.toFixed(0)} | ${all.plan.toFixed(0)} | ${all.verify.toFixed(0)} | ${all.summary} | ${cli.seconds.toFixed(2)} s, ${cli.peakMiB?.toFixed(0) ?? '?'} MiB |`,
  );
  console.error(`  ${size} issues: ${rows.at(-1)}`);
}

const table = [
  `### Planning at scale — ${name}, ${sources.length} source files`,
  '',
  `Synthetic backlogs; in-process medians of ${runs} run(s) in ms; the last column is one whole \`waves plan --top N --json\` process (graph from the cache). ${new Date().toISOString().slice(0, 10)}.`,
  '',
  '| issues | plan ms (2 waves) | verify ms (2 waves) | plan ms (every wave) | verify ms (every wave) | every wave planned | `waves plan` process |',
  '|---|---|---|---|---|---|---|',
  ...rows,
  '',
].join('\n');
console.log(table);
if (values.results) writeResultBlock(values.results, `plan:${name}`, table);
