import { describe, expect, it } from 'vitest';
import {
  BacktestReportSchema,
  bm25Baseline,
  calibration,
  fencePath,
  fenceRecall,
  firstHit,
  localisationFigures,
  locatableFiles,
  pathWords,
  runBacktest,
} from '@waves/planner';
import { BASE_FILES, BASE_IMPORTS, historyCommits } from '../helpers/backtest-history.js';
import { makeRepo } from '../helpers/repo.js';

describe('file-level localisation, as the SWE-bench papers count it', () => {
  // Four issues, worked out by hand:
  //  #1 truth [a]     ranked [a, x, y]          → hit at 1: Acc@1 any+all, Acc@5 any+all
  //  #2 truth [b, c]  ranked [x, b, y, z, w, c] → hit at 2: Acc@5 any, not all (c is 6th)
  //  #3 truth [d]     ranked []                 → a miss (no candidates)
  //  #4 truth [e, f]  ranked [f, e]             → Acc@1 any (not all), Acc@5 any and all
  //  #5 truth []      ranked [g]                → not locatable: counts nowhere
  const cases = [
    { number: 1, truth: ['a'], ranked: ['a', 'x', 'y'] },
    { number: 2, truth: ['b', 'c'], ranked: ['x', 'b', 'y', 'z', 'w', 'c'] },
    { number: 3, truth: ['d'], ranked: [] },
    { number: 4, truth: ['e', 'f'], ranked: ['f', 'e'] },
    { number: 5, truth: [], ranked: ['g'] },
  ];

  it('counts a true file among the top k (any) and every true file among them (all), over the locatable issues', () => {
    const figures = localisationFigures(cases);
    expect(figures.locatable).toBe(4);
    expect(figures.withCandidates).toBe(3);
    expect(figures.at1).toEqual({ any: 2 / 4, all: 1 / 4 });
    expect(figures.at5).toEqual({ any: 3 / 4, all: 2 / 4 });
    expect(cases.map(firstHit)).toEqual([1, 2, null, 1, null]);
  });

  it('bins the best candidates by tenths of confidence against how often they were right, the empty tenths left out', () => {
    const bins = calibration([
      { confidence: 0.95, hit: true },
      { confidence: 1, hit: true },
      { confidence: 0.72, hit: false },
      { confidence: 0.7, hit: true },
      { confidence: 0.79, hit: false },
      { confidence: 0.05, hit: false },
    ]);
    expect(bins).toEqual([
      { from: 0, to: 0.1, issues: 1, hits: 0 },
      { from: 0.7, to: 0.8, issues: 3, hits: 1 },
      { from: 0.9, to: 1, issues: 2, hits: 2 },
    ]);
    expect(calibration([])).toEqual([]);
  });

  it('judges a commit by the code it edits or deletes, not by its tests or the files it creates', () => {
    expect(
      locatableFiles([
        { path: 'src/z.ts', change: 'edit' },
        { path: 'src/new.ts', change: 'create' },
        { path: 'src/old.ts', change: 'delete' },
        { path: 'src/a.test.ts', change: 'edit' },
        { path: 'package.json', change: 'edit' },
      ]),
    ).toEqual(['src/old.ts', 'src/z.ts']);
  });

  it('counts a true file inside a fenced directory as inside the fence', () => {
    expect(['src/', 'src/a.ts', './', '/', '.', '.github/workflows/', './lib/x.ts'].map(fencePath)).toEqual(['src', 'src/a.ts', '', '', '', '.github/workflows', 'lib/x.ts']);
    const recall = fenceRecall([
      { truth: ['src/a.ts', 'lib/b.ts'], fence: ['src'] }, // 1 of 2
      { truth: ['lib/b.ts'], fence: ['lib/b.ts'] }, // 1 of 1
      { truth: [], fence: ['x'] }, // not judged
    ]);
    expect(recall).toEqual({ issues: 2, recall: 0.75, complete: 0.5 });
    expect(fenceRecall([])).toEqual({ issues: 0, recall: null, complete: null });
  });
});

describe('the BM25 baseline: the issue text against the file paths', () => {
  it('cuts paths and prose into words at punctuation, camelCase and digits', () => {
    expect(pathWords('packages/vite/src/node/plugins/importAnalysis.ts')).toEqual(['packages', 'vite', 'src', 'node', 'plugins', 'import', 'analysis', 'ts']);
    expect(pathWords('fix(css): HMRClient v4Schema')).toEqual(['fix', 'css', 'hmr', 'client', 'schema']);
  });

  it('ranks the file whose path holds the rare words of the title first, and code files only', () => {
    const files = ['src/cart/CartView.tsx', 'src/cart/cart-store.ts', 'src/user/profile.ts', 'src/user/avatar.ts', 'docs/cart.md', 'README.md'];
    const top = bm25Baseline(files, [
      { number: 1, text: 'CartView renders twice' },
      { number: 2, text: 'avatar of the user is blurry' },
      { number: 3, text: 'nothing matches here' },
    ]);
    expect(top.get(1)![0]).toBe('src/cart/CartView.tsx');
    expect(top.get(1)).toContain('src/cart/cart-store.ts');
    expect(top.get(1)).not.toContain('docs/cart.md');
    expect(top.get(2)![0]).toBe('src/user/avatar.ts');
    expect(top.get(3)).toEqual([]);
  });
});

describe('the backtest report of scope inference', () => {
  const repo = makeRepo({ files: Object.keys(BASE_FILES), imports: BASE_IMPORTS });
  const RANGE = { base: 'f'.repeat(40), until: '0c'.repeat(20), since: null };

  it('judges the BM25 baseline on every locatable issue at the title grade, and validates against the schema', () => {
    const report = BacktestReportSchema.parse(runBacktest({ commits: historyCommits(), repo, range: RANGE, grade: 'title', maxFiles: 8 }));
    const byNumber = new Map(report.issues.map((i) => [i.number, i]));
    // "feat: a (#1)" edits src/a.ts: one word, "a", is a single letter and dropped — no match.
    expect(byNumber.get(1)!.truthFiles).toEqual(['src/a.ts']);
    // "feat: n and g (#4)" edits lib/g.ts and creates src/n.ts: only lib/g.ts is judged.
    expect(byNumber.get(4)!.truthFiles).toEqual(['lib/g.ts']);
    expect(report.localisation.baseline.locatable).toBe(report.issues.filter((i) => i.truthFiles.length > 0).length);
    const hits = report.issues.filter((i) => i.truthFiles.length > 0 && i.baselineHit !== null && i.baselineHit <= 5).length;
    expect(report.localisation.baseline.at5.any).toBeCloseTo(hits / report.localisation.baseline.locatable);
    expect(report.localisation.goalAt5).toBeGreaterThanOrEqual(0.6);
  });
});
