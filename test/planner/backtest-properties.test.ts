import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BacktestReportSchema,
  findTrueConflicts,
  backlogFromCommits,
  findViolations,
  judgePlan,
  pairKey,
  runBacktest,
  type BacktestReport,
  type IssueNumber,
  type TrueConflict,
} from '@waves/planner';
import { historyArb, repoArb, type RandomHistory, type RandomRepo } from '../arbitraries.js';
import { makeRepo } from '../helpers/repo.js';

const RUNS = { numRuns: 120 };
const RANGE = { base: 'f'.repeat(40), until: 'e'.repeat(40), since: null };

const scenarioArb = repoArb.chain((repo) =>
  fc.record({
    history: historyArb(repo),
    grade: fc.constantFrom('files' as const, 'files' as const, 'dirs' as const, 'title' as const),
    waveSize: fc.integer({ min: 1, max: 5 }),
    contentionDepth: fc.integer({ min: 0, max: 2 }),
  }).map((rest) => ({ repo, ...rest })),
);

function backtest(s: { repo: RandomRepo; history: RandomHistory; grade: 'files' | 'dirs' | 'title'; waveSize: number; contentionDepth: number }): BacktestReport {
  const repo = makeRepo({ files: s.repo.files, imports: s.repo.edges, packages: s.repo.packages });
  return runBacktest({
    commits: s.history.commits,
    repo,
    range: RANGE,
    grade: s.grade,
    maxFiles: 4,
    options: { waveSize: s.waveSize, contentionDepth: s.contentionDepth },
  });
}

function truthOf(report: BacktestReport): Map<string, TrueConflict> {
  return new Map(report.trueConflicts.map((c) => [pairKey(c.a, c.b), c]));
}

/** The same list with the members of each run of equal keys (consecutive) reordered by `seeds`. */
function shuffleRuns<T>(items: readonly T[], keyOf: (item: T) => number, seeds: readonly number[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < items.length; ) {
    let j = i;
    while (j < items.length && keyOf(items[j]!) === keyOf(items[i]!)) j++;
    const run = items.slice(i, j).map((item, k) => ({ item, seed: seeds[(i + k) % seeds.length]! }));
    out.push(...run.sort((x, y) => x.seed - y.seed).map((r) => r.item));
    i = j;
  }
  return out;
}

describe('backtest properties', () => {
  it('never finds a violation in the perfect-knowledge reference, which respects the wave size and holds the dispatched issues', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const report = backtest(s);
        expect(findViolations(report.referenceWaves, truthOf(report))).toEqual([]);
        for (const wave of report.referenceWaves) expect(wave.length).toBeLessThanOrEqual(s.waveSize);
        expect(report.referenceWaves.flat().sort((a, b) => a - b)).toEqual(report.waves.flat().sort((a, b) => a - b));
        for (const issue of report.issues) expect(issue.referenceWave === null).toBe(issue.wave === null);
      }),
      RUNS,
    );
  });

  it('finds every true pair as a violation of a plan that puts every issue in one wave', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const report = backtest(s);
        const order = report.issues.map((i) => i.number);
        const judged = judgePlan({ order, truth: report.trueConflicts, waves: [order], waveSize: s.waveSize });
        expect(judged.violations.map((v) => [v.a, v.b])).toEqual(report.trueConflicts.map((c) => [c.a, c.b]));
      }),
      RUNS,
    );
  });

  it('judges the same whatever the order of the commits within a wave', () => {
    fc.assert(
      fc.property(scenarioArb, fc.array(fc.integer(), { minLength: 1, maxLength: 40 }), (s, seeds) => {
        const report = backtest(s);
        const order = report.issues.map((i) => i.number);
        const judged = judgePlan({ order, truth: report.trueConflicts, waves: report.waves, waveSize: s.waveSize });
        // Each wave listed in another order; consecutive commits of one reference wave replayed in another order.
        const listed = report.waves.map((wave, w) => shuffleRuns(wave, () => 0, seeds.map((x) => x * (w + 1))));
        const referenceWave = new Map<IssueNumber, number | null>(report.issues.map((i) => [i.number, i.referenceWave]));
        const replayed = shuffleRuns(order, (n) => referenceWave.get(n) ?? 0, seeds);
        const again = judgePlan({ order: replayed, truth: [...report.trueConflicts].reverse(), waves: listed, waveSize: s.waveSize });
        expect(again.violations).toEqual(judged.violations);
        expect(again.summary).toEqual(judged.summary);
        expect(again.reference.map((w) => [...w].sort((a, b) => a - b))).toEqual(judged.reference.map((w) => [...w].sort((a, b) => a - b)));
      }),
      RUNS,
    );
  });

  it('always gives a report that validates, each issue in exactly one place, rules crediting no more than the truth', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const report = backtest(s);
        BacktestReportSchema.parse(report);
        expect(backtest(s)).toEqual(report);
        const inWaves = report.waves.flat();
        expect(new Set(inWaves).size).toBe(inWaves.length);
        for (const wave of report.waves) expect(wave.length).toBeLessThanOrEqual(s.waveSize);
        for (const issue of report.issues) expect(issue.bucket === 'wave').toBe(inWaves.includes(issue.number));
        expect(report.summary.dispatched).toBe(inWaves.length);
        const alone = report.rules.reduce((sum, r) => sum + r.alonePrevented, 0);
        expect(alone).toBeLessThanOrEqual(report.summary.truePairs);
        for (const r of report.rules) expect(r.alonePrevented).toBeLessThanOrEqual(r.truePairs);
        // A violation is a true pair no rule kept apart.
        expect(report.summary.violations + alone).toBeLessThanOrEqual(report.summary.truePairs);
      }),
      RUNS,
    );
  });

  it('finds exactly the pairs a brute-force pairwise check of the definition finds', () => {
    fc.assert(
      fc.property(repoArb.chain((repo) => historyArb(repo).map((history) => ({ repo, history }))), ({ repo, history }) => {
        const { issues } = backlogFromCommits(history.commits, { maxFiles: 5 });
        const ancestors = (p: string) => p.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'));
        const dirs = new Set(repo.files.flatMap(ancestors));
        const importsOf = (file: string) => repo.edges.filter(([from]) => from === file).map(([, to]) => to);
        const truth = findTrueConflicts(issues, { isDir: (p) => dirs.has(p), importsOf });
        const expected: string[] = [];
        for (const x of issues) {
          for (const y of issues) {
            if (x.number >= y.number) continue;
            const px = x.files.map((f) => f.path);
            const py = y.files.map((f) => f.path);
            const created = (files: typeof x.files) => files.filter((f) => f.change === 'create').flatMap((f) => ancestors(f.path)).filter((d) => !dirs.has(d));
            const inside = (ds: string[], paths: string[]) => ds.some((d) => paths.some((p) => p.startsWith(`${d}/`)));
            if (
              px.some((p) => py.includes(p)) ||
              px.some((p) => importsOf(p).some((t) => py.includes(t))) ||
              py.some((p) => importsOf(p).some((t) => px.includes(t))) ||
              inside(created(x.files), py) ||
              inside(created(y.files), px)
            ) expected.push(`${x.number}:${y.number}`);
          }
        }
        expect(truth.map((c) => `${c.a}:${c.b}`).sort()).toEqual(expected.sort());
      }),
      RUNS,
    );
  });
});
