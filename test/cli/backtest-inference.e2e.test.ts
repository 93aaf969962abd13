/**
 * `waves backtest` with scope inference on a small real history: the localisation figures are
 * worked out by hand from what each commit changed and what its title says, the live-fence
 * replay is in the report, and the JSON validates against the schema.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BacktestReportSchema, type BacktestReport } from '@waves/planner';
import { TempRepo } from '../helpers/temp-repo.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'packages/cli/bin/waves.js');
const IDENTITY = ['-c', 'user.name=waves', '-c', 'user.email=waves@example.invalid'];

const BASE: Record<string, string> = {
  'package.json': '{ "name": "shop", "private": true }\n',
  'src/cart/cart-store.ts': "import { request } from '../net/request';\nexport function addToCart(sku: string, quantity: number) {\n  return request(`/cart/${sku}?q=${quantity}`);\n}\n",
  'src/theme/apply-theme.ts': "export function applyTheme(mode: 'light' | 'dark') {\n  return mode;\n}\n",
  'src/net/request.ts': 'export function request(url: string) {\n  return url;\n}\n',
  'src/search/build-search-index.ts': 'export function buildSearchIndex(items: string[]) {\n  return new Set(items);\n}\n',
};

// Each commit edits one file; its title names (or does not name) what it changed:
//  #1 `addToCart`            → src/cart/cart-store.ts        (identifier: a hit at rank 1)
//  #2 `applyTheme`           → src/theme/apply-theme.ts      (identifier: a hit at rank 1)
//  #3 `buildSearchIndex`     → src/search/build-search-index.ts
//  #4 "bump the year"        → src/net/request.ts            (nothing in the title points there)
const STEPS: { subject: string; file: string }[] = [
  { subject: 'fix: addToCart rejects a zero quantity (#1)', file: 'src/cart/cart-store.ts' },
  { subject: 'feat: applyTheme accepts a high-contrast mode (#2)', file: 'src/theme/apply-theme.ts' },
  { subject: 'perf: buildSearchIndex skips duplicates (#3)', file: 'src/search/build-search-index.ts' },
  { subject: 'chore: bump the year (#4)', file: 'src/net/request.ts' },
];

let repo: TempRepo;
beforeAll(async () => {
  repo = await TempRepo.create(BASE);
  let n = 0;
  for (const step of STEPS) {
    await repo.write({ [step.file]: `${BASE[step.file]}// change ${++n}\n` });
    await repo.git('add', '-A');
    await repo.git(...IDENTITY, 'commit', '-q', '-m', step.subject);
  }
});
afterAll(async () => {
  await repo.dispose();
});

async function backtest(args: string[]): Promise<BacktestReport> {
  const result = await execa('node', [BIN, 'backtest', '--root', repo.root, '--last', String(STEPS.length), '--json', ...args], { reject: false, stdin: 'ignore', env: { NO_COLOR: '1' } });
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  return BacktestReportSchema.parse(JSON.parse(result.stdout));
}

describe('waves backtest with scope inference', () => {
  it('judges the candidates of titles file by file, beside the BM25 baseline, and replays live fences', async () => {
    const report = await backtest(['--grade', 'title', '--inference', 'plan']);
    const byNumber = new Map(report.issues.map((i) => [i.number, i]));
    expect(report.options.inference?.mode).toBe('plan');
    expect([1, 2, 3, 4].map((n) => byNumber.get(n)!.truthFiles)).toEqual(STEPS.map((s) => [s.file]));
    // The names in the titles are declared once each: their files come first.
    expect([1, 2, 3].map((n) => byNumber.get(n)!.candidateHit)).toEqual([1, 1, 1]);
    // Acc@k as counted by hand from each issue's rank of its first true file.
    const hits = report.issues.map((i) => i.candidateHit);
    const rate = (k: number) => hits.filter((h) => h !== null && h <= k).length / 4;
    expect(report.localisation.all.locatable).toBe(4);
    expect(report.localisation.all.at1.any).toBe(rate(1));
    expect(report.localisation.all.at5.any).toBe(rate(5));
    // One true file per issue: "all" is "any".
    expect(report.localisation.all.at5.all).toBe(report.localisation.all.at5.any);
    expect(report.localisation.all.at1.any).toBeGreaterThanOrEqual(0.75);
    // The baseline's words from "addToCart" (add, to, cart) find src/cart/cart-store.ts too.
    expect(byNumber.get(1)!.baseline[0]).toBe('src/cart/cart-store.ts');
    // Plan mode: the confident issues are dispatched on inferred fences holding their files.
    const dispatched = report.issues.filter((i) => i.inferred);
    expect(dispatched.map((i) => i.number)).toEqual(expect.arrayContaining([1, 2, 3]));
    expect(report.localisation.inferredDispatched).toBe(dispatched.length);
    // How sure the best candidate was, against how often it was right: every issue with candidates
    // counted once, in its tenth, and right where its first true file is the best candidate.
    const bins = report.localisation.calibration;
    const withCandidates = report.issues.filter((i) => i.candidates.length > 0 && i.truthFiles.length > 0);
    expect(bins.reduce((n, b) => n + b.issues, 0)).toBe(withCandidates.length);
    expect(bins.reduce((n, b) => n + b.hits, 0)).toBe(withCandidates.filter((i) => i.candidateHit === 1).length);
    expect(bins.every((b, k) => b.to - b.from < 0.1 + 1e-9 && b.hits <= b.issues && (k === 0 || b.from > bins[k - 1]!.from))).toBe(true);
    expect(report.localisation.fence.complete).toBeGreaterThanOrEqual(0.75);
    expect(report.liveFences).not.toBeNull();
    expect(report.liveFences!.collisions).toBe(0);
    expect(report.liveFences!.writes).toBe(report.summary.dispatched);
  });

  it('shows the inference and live-fence figures in the table', async () => {
    const result = await execa('node', [BIN, 'backtest', '--root', repo.root, '--last', '4', '--grade', 'title'], { reject: false, stdin: 'ignore', env: { NO_COLOR: '1' } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Scope inference (file level)');
    expect(result.stdout).toMatch(/BM25 baseline +│ Acc@1 \d/);
    expect(result.stdout).toMatch(/Best candidate right +│ 0\.\d–[01]\.\d: \d+\.\d% of \d+/);
    expect(result.stdout).toContain('Live fences');
  });

  it('judges a file by its path at the base: one renamed earlier in the range by its old path, one created in the range not at all', async () => {
    const moved = await TempRepo.create(BASE);
    try {
      const commit = async (subject: string) => {
        await moved.git('add', '-A');
        await moved.git(...IDENTITY, 'commit', '-q', '-m', subject);
      };
      // #1 moves the theme into ui/ (a merge would bring it the same way); #2 creates a file.
      await moved.git('mv', 'src/theme', 'src/ui');
      await moved.write({ 'src/cart/cart-store.ts': `${BASE['src/cart/cart-store.ts']}// 1\n` });
      await commit('refactor: move the theme into ui (#1)');
      await moved.write({ 'src/cart/coupons.ts': 'export const coupons = [];\n' });
      await commit('feat: coupons (#2)');
      // #3 edits the moved file: at the base it is src/theme/apply-theme.ts, which the title names.
      await moved.write({ 'src/ui/apply-theme.ts': `${BASE['src/theme/apply-theme.ts']}// 3\n` });
      await commit('fix: applyTheme keeps the mode (#3)');
      // #4 edits only the file #2 created: nothing at the base to find.
      await moved.write({ 'src/cart/coupons.ts': 'export const coupons: string[] = [];\n' });
      await commit('fix: coupons are strings (#4)');
      const result = await execa('node', [BIN, 'backtest', '--root', moved.root, '--last', '4', '--grade', 'title', '--json'], { reject: false, stdin: 'ignore', env: { NO_COLOR: '1' } });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      const report = BacktestReportSchema.parse(JSON.parse(result.stdout));
      const byNumber = new Map(report.issues.map((i) => [i.number, i]));
      expect(byNumber.get(3)!.files.map((f) => f.path)).toEqual(['src/ui/apply-theme.ts']);
      expect(byNumber.get(3)!.truthFiles).toEqual(['src/theme/apply-theme.ts']);
      expect(byNumber.get(3)!.candidateHit).toBe(1);
      expect(byNumber.get(4)!.truthFiles).toEqual([]);
      // #1 (its cart edit) and #3 are locatable; #2 only creates, #4 edits what did not exist.
      expect(report.localisation.all.locatable).toBe(2);
    } finally {
      await moved.dispose();
    }
  });
  it('localises an issue whose title names its file by that file, ahead of any candidate', async () => {
    const named = await TempRepo.create(BASE);
    try {
      await named.write({ 'src/net/request.ts': `${BASE['src/net/request.ts']}// typo fixed\n` });
      await named.git('add', '-A');
      await named.git(...IDENTITY, 'commit', '-q', '-m', 'chore: fix a typo in `request.ts` and `addToCart` (#1)');
      const result = await execa('node', [BIN, 'backtest', '--root', named.root, '--last', '1', '--grade', 'title', '--json'], { reject: false, stdin: 'ignore', env: { NO_COLOR: '1' } });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      const issue = BacktestReportSchema.parse(JSON.parse(result.stdout)).issues[0]!;
      // Dispatched on the file its title names (not inferred); the name it mentions adds a candidate after it.
      expect(issue.inferred).toBe(false);
      expect(issue.fence).toEqual(['src/net/request.ts']);
      expect(issue.candidates).toEqual(['src/net/request.ts', 'src/cart/cart-store.ts']);
      expect(issue.candidateHit).toBe(1);
    } finally {
      await named.dispose();
    }
  });
});
