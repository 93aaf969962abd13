/**
 * `pnpm bench inference-vague --repos DIR,DIR… [--results bench/RESULTS.md]`: a guard that
 * backtests cannot be — commit subjects are never vague. The 25 titles of
 * `bench/inference-reports/vague-titles.json` ("It does not work", "Request failed", "hello"…)
 * planned against each repository with `--inference plan` (threshold 0.7): how many are dispatched
 * (on a fence inferred from a file, or on an area), how many are said "likely", and their best
 * confidence. Goal: none dispatched on a file fence; few on an area.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { PlanSchema } from '../packages/planner/dist/index.js';
import { writeResultBlock } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const values = benchArgs({ repos: { type: 'string' }, results: { type: 'string' } }, 'pnpm bench inference-vague --repos DIR,DIR… [--results bench/RESULTS.md]', 'repos');
const BENCH = path.dirname(new URL(import.meta.url).pathname);
const WAVES = path.join(BENCH, '..', 'packages/cli/bin/waves.js');
const TITLES = path.join(BENCH, 'inference-reports', 'vague-titles.json');
const lines = [
  `### Scope inference on vague titles`,
  '',
  `The 25 titles of \`bench/inference-reports/vague-titles.json\` planned against each repository at its HEAD with \`--inference plan\` (threshold 0.7), every issue evaluated; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}. Goal: no vague title dispatched on a fence inferred from its files.`,
  '',
  '| repository | dispatched on files | on an area | said "likely" | said "perhaps" | best confidence: mean / max |',
  '|---|---|---|---|---|---|',
];
for (const root of values.repos.split(',')) {
  const out = execFileSync('node', [WAVES, 'plan', '--from-issues', TITLES, '--root', root, '--inference', 'plan', '--top', '25', '--wave-size', '25', '--max-waves', '25', '--json'], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
  const plan = PlanSchema.parse(JSON.parse(out));
  const entries = [...plan.waves.flatMap((w) => w.issues), ...plan.triage, ...plan.deferred, ...plan.held];
  const dispatched = plan.waves.flatMap((w) => w.issues).filter((i) => i.inferred);
  // Below the threshold, only an area fence (the best candidates' package) dispatches an issue.
  const area = dispatched.filter((i) => (i.candidates?.[0]?.confidence ?? 0) < 0.7);
  const best = entries.map((e) => (e as { candidates?: { confidence: number }[] }).candidates?.[0]?.confidence ?? 0);
  const said = (word: string) => plan.triage.filter((t) => t.reason.includes(`; ${word} `)).length;
  const row = `| ${path.basename(root)} | ${dispatched.length - area.length} | ${area.length} | ${said('likely')} | ${said('perhaps')} | ${(best.reduce((a, b) => a + b, 0) / Math.max(1, best.length)).toFixed(2)} / ${Math.max(0, ...best).toFixed(2)} |`;
  lines.push(row);
  console.error(row);
}
const table = lines.join('\n');
console.log(table);
if (values.results) writeResultBlock(values.results, 'inference-vague', table);
