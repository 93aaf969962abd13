/**
 * `pnpm bench backtests --repos DIR,DIR… [--last 300]`: `waves backtest` at every grade on several
 * repositories with each one's own (default) config, as one table for bench/RESULTS.md — per
 * repository the commit, the range and the issues, and per grade the violations, the waves against
 * the perfect-knowledge reference and the share dispatched — and whether the defaults meet the
 * goals of issue #12 §2 (files: 0 violations, waves ≤ 1.05 × reference, ≥ 95 % dispatched; dirs:
 * 0 violations, ≥ 95 % dispatched).
 *
 * `--waves DIR` measures another built checkout of waves (an older version, say) on the same
 * ranges. Every report is judged again by this version's `judgePlan` (the violations, the
 * reference of the dispatched issues, the share dispatched) from the plan's waves and the truth
 * it lists, so that two versions are compared with one instrument.
 */
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { judgePlan } from '../packages/planner/dist/index.js';
import { measure } from './lib/measure.js';
import { writeResultBlock } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const values = benchArgs(
  {
    repos: { type: 'string' },
    last: { type: 'string', default: '300' },
    until: { type: 'string', default: 'HEAD' },
    grades: { type: 'string', default: 'files,dirs,title' },
    waves: { type: 'string' },
    label: { type: 'string', default: 'current defaults' },
    results: { type: 'string' },
    key: { type: 'string', default: 'backtests' },
  },
  'pnpm bench backtests --repos DIR,DIR… [--last 300] [--until HEAD] [--grades files,dirs,title] [--waves DIR] [--label TEXT] [--results bench/RESULTS.md] [--key backtests]',
  'repos',
);
const BENCH = path.dirname(new URL(import.meta.url).pathname);
const WAVES = path.resolve(values.waves ?? path.join(BENCH, '..'));
const BIN = path.join(WAVES, 'packages/cli/bin/waves.js');
const grades = values.grades!.split(',');
const last = Number(values.last);

/** What this script reads of a report: the fields every version of `waves backtest --json` has had. */
interface Report {
  repo: { base: string; until: string; commits: number };
  options: { waveSize: number };
  issues: { number: number }[];
  waves: number[][];
  trueConflicts: { a: number; b: number; evidence: { kind: 'path' | 'new-dir' | 'import'; detail: string }[] }[];
}

const goals = { files: { ratio: 1.05, share: 0.95 }, dirs: { ratio: Infinity, share: 0.95 } } as Record<string, { ratio: number; share: number } | undefined>;
const rows: string[] = [];
let missed = 0;
for (const dir of values.repos.split(',')) {
  const root = path.resolve(dir);
  const name = path.basename(root);
  const head = execFileSync('git', ['rev-parse', values.until!], { cwd: root, encoding: 'utf8' }).trim();
  const cells: string[] = [];
  let range = '';
  let issues = 0;
  for (const grade of grades) {
    const run = measure('node', [BIN, 'backtest', '--root', root, '--last', String(last), '--until', values.until!, '--grade', grade, '--json'], root);
    const report = JSON.parse(run.stdout) as Report;
    const { summary } = judgePlan({
      order: report.issues.map((i) => i.number),
      truth: report.trueConflicts,
      waves: report.waves,
      waveSize: report.options.waveSize,
    });
    range = `\`${report.repo.base.slice(0, 10)}..${report.repo.until.slice(0, 10)}\` (${report.repo.commits})`;
    issues = summary.issues;
    const ratio = summary.wavesRatio === null ? '—' : summary.wavesRatio.toFixed(2);
    const goal = goals[grade];
    const meets = !goal || (summary.violations === 0 && (summary.wavesRatio ?? 0) <= goal.ratio && summary.dispatchedShare >= goal.share);
    if (!meets) missed++;
    cells.push(`${summary.violations}`, `${summary.waves} ÷ ${summary.referenceWaves} = ${ratio}`, `${(summary.dispatchedShare * 100).toFixed(1)}%${meets ? '' : ' ✗'}`);
    console.error(`  ${name} ${grade}: ${run.seconds.toFixed(1)} s`);
  }
  rows.push(`| ${name} | \`${head.slice(0, 10)}\` | ${range} | ${issues} | ${cells.join(' | ')} |`);
}

const head = grades.flatMap((g) => [`${g}: violations`, `${g}: waves ÷ ref.`, `${g}: dispatched`]);
const table = [
  `${values.label}: \`waves backtest --last ${last}${values.until === 'HEAD' ? '' : ` --until ${values.until}`}\`, each repository's own (default) config; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}. ✗: misses a goal of issue #12 §2.`,
  '',
  `| repository | commit | range (commits) | issues | ${head.join(' | ')} |`,
  `|---|---|---|---|${head.map(() => '---').join('|')}|`,
  ...rows,
  '',
];
console.log(table.join('\n'));
console.error(missed === 0 ? 'every goal met' : `${missed} grade(s) miss a goal`);
if (values.results) writeResultBlock(values.results, values.key!, table.join('\n'));
