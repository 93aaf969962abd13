import { describe, expect, it } from 'vitest';
import {
  backlogFromCommits,
  BacktestReportSchema,
  commitNumber,
  createRepoTree,
  extractScope,
  findTrueConflicts,
  judgePlan,
  referenceWaves,
  runBacktest,
  toBacklogIssue,
  truthEdgesFromJson,
  writeIssueBody,
  type BacktestReport,
  type CommitIssue,
  type PlanOptionsInput,
} from '@waves/planner';
import { BASE_FILES, BASE_IMPORTS, historyCommits } from '../helpers/backtest-history.js';
import { makeRepo } from '../helpers/repo.js';

const repo = makeRepo({ files: Object.keys(BASE_FILES), imports: BASE_IMPORTS });
const F = commitNumber('0a'.repeat(20));
const RANGE = { base: 'f'.repeat(40), until: '0c'.repeat(20), since: null };

function backtest(grade: 'files' | 'dirs' | 'title' = 'files', options: PlanOptionsInput = {}): BacktestReport {
  return BacktestReportSchema.parse(runBacktest({ commits: historyCommits(), repo, range: RANGE, grade, maxFiles: 8, options }));
}

function rule(report: BacktestReport, id: string) {
  const found = report.rules.find((r) => r.rule === id);
  if (!found) throw new Error(`no rule ${id}`);
  return { issues: found.issues, pairs: found.pairs, truePairs: found.truePairs, wavesCost: found.wavesCost, alonePrevented: found.alonePrevented };
}

const issue = (number: number, files: CommitIssue['files'], rank = 0): CommitIssue => ({ number, rank, sha: String(number).padStart(40, '0'), title: `#${number}`, files });

describe('the backlog a backtest replays', () => {
  it('makes one issue per kept commit, in history order, numbered by the (#N) of its subject', () => {
    const { issues, skipped } = backlogFromCommits(historyCommits(), { maxFiles: 8 });
    expect(issues.map((i) => i.number)).toEqual([1, 2, 3, 4, 5, 6, F, 11]);
    expect(issues.map((i) => i.rank)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(issues[3]!.files).toEqual([
      { path: 'lib/g.ts', change: 'edit' },
      { path: 'src/n.ts', change: 'create' },
    ]);
    expect(skipped.map((s) => [s.subject, s.reason])).toEqual([
      ['Merge branch side (#7)', 'merge'],
      ['docs: readme (#8)', 'no-files'],
      ['test: a (#9)', 'only-tests'],
      ['chore: manifest only (#12)', 'no-code'],
    ]);
  });

  it('gives a commit whose number an older one took a number derived from its id, the same in any range', () => {
    const commits = historyCommits();
    const whole = backlogFromCommits(commits, { maxFiles: 8 }).issues;
    const tail = backlogFromCommits(commits.slice(9), { maxFiles: 8 }).issues;
    expect(whole.find((i) => i.title === 'feat: f (#3)')!.number).toBe(F);
    // Alone in its range, the commit keeps its (#3).
    expect(tail.find((i) => i.title === 'feat: f (#3)')!.number).toBe(3);
    expect(new Set(whole.map((i) => i.number)).size).toBe(whole.length);
  });

  it('cuts a subject to the 256 characters of an issue title', () => {
    const files = [{ path: 'src/a.ts', change: 'edit' as const }];
    const { issues } = backlogFromCommits([{ sha: 'a'.repeat(40), parents: ['b'.repeat(40)], subject: `fix: ${'x'.repeat(100_000)}`, files }], { maxFiles: 8 });
    expect([...issues[0]!.title]).toHaveLength(256);
    expect(issues[0]!.title.endsWith('…')).toBe(true);
  });

  it('leaves docs, markdown and tool-written files (lockfiles, ESLint suppressions) out of a commit before counting its files', () => {
    const files = ['docs/guide.ts', 'a/README.md', 'pnpm-lock.yaml', 'x/yarn.lock', 'eslint-suppressions.json', 'src/a.ts'].map((path) => ({ path, change: 'edit' as const }));
    const { issues } = backlogFromCommits([{ sha: 'a'.repeat(40), parents: ['b'.repeat(40)], subject: 's', files }], { maxFiles: 1 });
    expect(issues[0]!.files).toEqual([{ path: 'src/a.ts', change: 'edit' }]);
    const many = Array.from({ length: 3 }, (_, i) => ({ path: `src/f${i}.ts`, change: 'edit' as const }));
    expect(backlogFromCommits([{ sha: 'a'.repeat(40), parents: [], subject: 's', files: many }], { maxFiles: 2 }).skipped[0]!.reason).toBe('too-many-files');
  });

  it('writes every file with its change at the files grade, the directories at the dirs grade, nothing at the title grade', () => {
    const files = [
      { path: 'src/a.ts', change: 'edit' as const },
      { path: 'src/n.ts', change: 'create' as const },
      { path: 'package.json', change: 'edit' as const },
    ];
    expect(writeIssueBody(files, 'files')).toBe('## Files\n\n- `src/a.ts` (edit)\n- `src/n.ts` (create)\n- `package.json` (edit)\n');
    expect(writeIssueBody(files, 'dirs')).toBe('## Files\n\n- `./`\n- `src/`\n');
    expect(writeIssueBody(files, 'title')).toBe('');
  });

  it('writes bodies the planner reads back as the very files, a new one as a new file', () => {
    const tree = createRepoTree(Object.keys(BASE_FILES));
    const files = [
      { path: 'src/a.ts', change: 'edit' as const },
      { path: 'src/n.ts', change: 'create' as const },
      { path: 'lib/f.ts', change: 'delete' as const },
    ];
    const scope = extractScope(toBacklogIssue(issue(1, files), 'files'), tree);
    expect(scope.leaves.map((l) => [l.path, l.kind])).toEqual([
      ['lib/f.ts', 'file'],
      ['src/a.ts', 'file'],
      ['src/n.ts', 'new-file'],
    ]);
    expect(extractScope(toBacklogIssue(issue(1, files), 'dirs'), tree).leaves.map((l) => [l.path, l.kind])).toEqual([
      ['lib', 'dir'],
      ['src', 'dir'],
    ]);
  });
});

describe('the truth', () => {
  const base = { isDir: (p: string) => ['src', 'lib'].includes(p), importsOf: (f: string) => (f === 'src/a.ts' ? ['src/b.ts'] : []) };

  it('pairs issues touching one path, a path inside a directory the other creates, or files one imports of the other', () => {
    const truth = findTrueConflicts(
      [
        issue(1, [{ path: 'src/a.ts', change: 'edit' }]),
        issue(2, [{ path: 'src/b.ts', change: 'delete' }]),
        issue(3, [{ path: 'src/a.ts', change: 'edit' }]),
        issue(4, [{ path: 'src/new/x.ts', change: 'create' }]),
        issue(5, [{ path: 'src/new/y.ts', change: 'create' }]),
        issue(6, [{ path: 'src/new/deeper/z.ts', change: 'edit' }]),
        issue(7, [{ path: 'lib/other.ts', change: 'edit' }]),
      ],
      base,
    );
    expect(truth).toEqual([
      { a: 1, b: 2, evidence: [{ kind: 'import', detail: 'src/a.ts (#1) imports src/b.ts (#2)' }] },
      { a: 1, b: 3, evidence: [{ kind: 'path', detail: 'both touch src/a.ts' }] },
      { a: 2, b: 3, evidence: [{ kind: 'import', detail: 'src/a.ts (#3) imports src/b.ts (#2)' }] },
      { a: 4, b: 5, evidence: [{ kind: 'new-dir', detail: '#4 creates src/new/, #5 touches src/new/y.ts' }, { kind: 'new-dir', detail: '#5 creates src/new/, #4 touches src/new/x.ts' }] },
      { a: 4, b: 6, evidence: [{ kind: 'new-dir', detail: '#4 creates src/new/, #6 touches src/new/deeper/z.ts' }] },
      { a: 5, b: 6, evidence: [{ kind: 'new-dir', detail: '#5 creates src/new/, #6 touches src/new/deeper/z.ts' }] },
    ]);
  });

  it('reads import edges from dependency-cruiser and from waves graph --json --edges, leaving out what is not a repository file', () => {
    const cruised = truthEdgesFromJson({
      modules: [
        {
          source: 'src/a.ts',
          dependencies: [
            { resolved: 'src/b.ts', coreModule: false, couldNotResolve: false },
            { resolved: 'node_modules/zod/index.js' },
            { resolved: 'fs', coreModule: true },
            { resolved: './missing', couldNotResolve: true },
          ],
        },
        { source: './lib/g.ts', dependencies: [{ resolved: './lib/f.ts' }] },
      ],
      summary: {},
    });
    expect(cruised).toEqual({ ok: true, value: { format: 'dependency-cruiser', edges: [['src/a.ts', 'src/b.ts'], ['lib/g.ts', 'lib/f.ts']] } });
    expect(truthEdgesFromJson({ schemaVersion: 1, edges: [{ from: 'a.ts', to: 'b.ts', kind: 'static' }] })).toEqual({
      ok: true,
      value: { format: 'waves-graph', edges: [['a.ts', 'b.ts']] },
    });
    expect(truthEdgesFromJson({ files: 3, imports: 2 })).toMatchObject({ ok: false, message: expect.stringContaining('--edges') });
    expect(truthEdgesFromJson([1, 2])).toMatchObject({ ok: false });
    expect(truthEdgesFromJson({ modules: [{ source: 1 }] })).toMatchObject({ ok: false, message: expect.stringContaining('$.modules[0]') });
  });
});

describe('the perfect-knowledge reference', () => {
  it('puts each issue, in history order, in the earliest wave with room and no true conflict', () => {
    const conflicts = new Set(['1:2', '1:6', '2:6', '4:9', '3:11']);
    expect(referenceWaves([1, 2, 3, 4, 5, 6, 9, 11], conflicts, 4)).toEqual([
      [1, 3, 4, 5],
      [2, 9, 11],
      [6],
    ]);
    expect(referenceWaves([1, 2, 3], new Set(), 2)).toEqual([[1, 2], [3]]);
  });

  it('puts an issue after the issues it depends on, even one ranked later', () => {
    // #2 depends on #1; #1 depends on #4, ranked last.
    expect(referenceWaves([1, 2, 3, 4], new Set(), 4, [[1, 2], [4, 1]])).toEqual([[3, 4], [1], [2]]);
  });

  it('judges a plan: a violation per truly conflicting pair sharing a wave, waves against the reference, the share dispatched', () => {
    const truth = [{ a: 1, b: 2, evidence: [{ kind: 'path' as const, detail: 'both touch x' }] }];
    const judged = judgePlan({ order: [1, 2, 3], truth, waves: [[2, 1]], waveSize: 4 });
    expect(judged.violations).toEqual([{ wave: 1, a: 1, b: 2, evidence: truth[0]!.evidence }]);
    expect(judged.summary).toEqual({ issues: 3, dispatched: 2, dispatchedShare: 2 / 3, waves: 1, referenceWaves: 2, wavesRatio: 0.5, violations: 1, truePairs: 1 });
  });

  it('builds the reference of the dispatched issues only, with the dependencies the plan respected', () => {
    // #3 is set aside (subdivide, say): the reference does not plan it either.
    const truth = [{ a: 1, b: 3, evidence: [{ kind: 'path' as const, detail: 'both touch x' }] }];
    const judged = judgePlan({ order: [1, 2, 3], truth, waves: [[1], [2]], waveSize: 4, precedences: [[1, 2]] });
    expect(judged.reference).toEqual([[1], [2]]);
    expect(judged.summary).toMatchObject({ dispatched: 2, waves: 2, referenceWaves: 2, wavesRatio: 1 });
    expect(judgePlan({ order: [1, 2, 3], truth, waves: [[1, 2]], waveSize: 4 }).reference).toEqual([[1, 2]]);
  });
});

describe('runBacktest', () => {
  it('reports the truth, the reference, a plan without violation and what each rule did (files grade)', () => {
    const report = backtest();
    expect(report.trueConflicts.map((c) => [c.a, c.b, c.evidence.map((e) => e.kind).join()])).toEqual([
      [1, 2, 'import'],
      [1, 6, 'path'],
      [2, 6, 'import'],
      [3, 11, 'import'],
      [4, F, 'import'],
    ]);
    expect(report.referenceWaves).toEqual([[1, 3, 4, 5], [2, F, 11], [6]]);
    // #1, #2 and #6 conflict pairwise: 3 waves. #5 touches package.json, the only root file of the backlog: it shares a wave.
    expect(report.waves).toEqual([[1, 3, 4, 5], [2, F, 11], [6]]);
    expect(report.summary).toMatchObject({ issues: 8, dispatched: 8, dispatchedShare: 1, waves: 3, referenceWaves: 3, wavesRatio: 1, violations: 0, truePairs: 5 });
    expect(report.issues.find((i) => i.number === 5)).toMatchObject({ bucket: 'wave', wave: 1, referenceWave: 1, reason: null });
    expect(rule(report, 'root-files')).toEqual({ issues: 1, pairs: 0, truePairs: 0, wavesCost: 0, alonePrevented: 0 });
    expect(rule(report, 'import')).toEqual({ issues: null, pairs: 4, truePairs: 4, wavesCost: 1, alonePrevented: 4 });
    expect(rule(report, 'path')).toEqual({ issues: null, pairs: 1, truePairs: 1, wavesCost: 1, alonePrevented: 1 });
    expect(rule(report, 'serial-config')).toEqual({ issues: 0, pairs: null, truePairs: 0, wavesCost: 0, alonePrevented: 0 });
    expect(rule(report, 'dependency')).toEqual({ issues: null, pairs: 0, truePairs: 0, wavesCost: 0, alonePrevented: 0 });
    expect(rule(report, 'triage')).toEqual({ issues: 0, pairs: null, truePairs: 0, wavesCost: null, alonePrevented: 0 });
    expect(report.skipped.map((s) => s.reason)).toEqual(['merge', 'no-files', 'only-tests', 'no-code']);
  });

  it('credits a conflict two rules keep apart to neither alone', () => {
    const report = backtest('files', { serial: ['lib/**'] });
    // #4 and #F run alone too: 3 serial waves and 3 for the triangle #1, #2, #6, against 1 + 3 without the glob.
    expect(rule(report, 'serial-config')).toEqual({ issues: 2, pairs: null, truePairs: 1, wavesCost: 2, alonePrevented: 0 });
    expect(rule(report, 'import')).toMatchObject({ truePairs: 4, alonePrevented: 3 });
    expect(report.summary.violations).toBe(0);
  });

  it('measures subdivide by planning what it set aside', () => {
    const report = backtest('files', { maxFiles: 1 });
    // #4 changes two source files; #5 one, beside the manifest (which is not code). Without #4 or with it: the triangle's 3 waves.
    expect(report.issues.filter((i) => i.bucket === 'subdivide').map((i) => i.number)).toEqual([4]);
    expect(rule(report, 'subdivide')).toEqual({ issues: 1, pairs: null, truePairs: 1, wavesCost: 0, alonePrevented: 0 });
    expect(report.summary).toMatchObject({ dispatched: 7, waves: 3, referenceWaves: 3 });
    // The reference plans what the plan dispatched: not #4.
    expect(report.referenceWaves).toEqual([[1, 3, 5, F], [2, 11], [6]]);
    expect(report.issues.find((i) => i.number === 4)).toMatchObject({ bucket: 'subdivide', wave: null, referenceWave: null });
  });

  it('measures the root-files rule: two issues touching root files never share a wave, at the cost it has', () => {
    const commits = [
      { sha: '1'.repeat(40), parents: ['f'.repeat(40)], subject: 'chore: scripts (#21)', files: [{ path: 'package.json', change: 'edit' as const }, { path: 'src/e.ts', change: 'edit' as const }] },
      { sha: '2'.repeat(40), parents: ['f'.repeat(40)], subject: 'ci: lint (#22)', files: [{ path: '.github/workflows/ci.yml', change: 'create' as const }, { path: 'lib/f.ts', change: 'edit' as const }] },
      { sha: '3'.repeat(40), parents: ['f'.repeat(40)], subject: 'fix: c (#23)', files: [{ path: 'src/c.ts', change: 'edit' as const }] },
    ];
    const report = runBacktest({ commits, repo, range: RANGE, grade: 'files', maxFiles: 8 });
    expect(report.trueConflicts).toEqual([]);
    expect(report.waves).toEqual([[21, 23], [22]]);
    expect(report.summary).toMatchObject({ waves: 2, referenceWaves: 1, violations: 0 });
    expect(rule(report, 'root-files')).toEqual({ issues: 2, pairs: 1, truePairs: 0, wavesCost: 1, alonePrevented: 0 });
    expect(rule(report, 'path')).toEqual({ issues: null, pairs: 0, truePairs: 0, wavesCost: 0, alonePrevented: 0 });
  });

  it('at the title grade nothing resolves: every issue goes to triage, which alone keeps every true conflict apart', () => {
    const report = backtest('title');
    expect(report.summary).toMatchObject({ dispatched: 0, waves: 0, violations: 0, referenceWaves: 0, wavesRatio: null });
    expect(rule(report, 'triage')).toEqual({ issues: 8, pairs: null, truePairs: 5, wavesCost: null, alonePrevented: 5 });
  });

  it('judges by another tool’s edges when given: a conflict waves does not see becomes a violation', () => {
    const truthEdges = { format: 'dependency-cruiser' as const, file: 'dc.json', edges: [['src/c.ts', 'lib/g.ts']] as [string, string][] };
    const report = runBacktest({ commits: historyCommits(), repo, range: RANGE, grade: 'files', maxFiles: 8, truthEdges });
    expect(report.trueConflicts.map((c) => [c.a, c.b])).toEqual([
      [1, 6],
      [3, 4],
    ]);
    expect(report.options.truth).toEqual({ source: 'dependency-cruiser', file: 'dc.json', edges: 1 });
    expect(report.waves[0]).toEqual([1, 3, 4, 5]);
    expect(report.violations).toEqual([{ wave: 1, a: 3, b: 4, evidence: [{ kind: 'import', detail: 'src/c.ts (#3) imports lib/g.ts (#4)' }] }]);
  });
});
