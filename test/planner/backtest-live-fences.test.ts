import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BacktestReportSchema,
  createRepoTree,
  decideLeases,
  runBacktest,
  simulateLiveFences,
  type CommitIssue,
  type DecideLeases,
  type HistoryCommit,
} from '@waves/planner';
import { historyArb, repoArb } from '../arbitraries.js';
import { makeRepo } from '../helpers/repo.js';

// The base: src/a.ts imports src/b.ts; lib/c.ts and lib/d.ts import nothing; package.json is a root file.
const FILES = ['package.json', 'src/a.ts', 'src/b.ts', 'lib/c.ts', 'lib/d.ts', 'lib/e.ts'];
const repo = makeRepo({ files: FILES, imports: [['src/a.ts', 'src/b.ts']] });
const tree = createRepoTree(repo.files, repo.packages);
const base = {
  isDir: (path: string) => tree.isDir(path),
  importsOf: (file: string) => (repo.graph.hasNode(file) ? repo.graph.outNeighbors(file) : []),
};
const rules = { graph: repo.graph, tree, contentionDepth: 1, serial: [] as string[] };
const edit = (...paths: string[]) => paths.map((path) => ({ path, change: 'edit' as const }));
const issue = (number: number, files: CommitIssue['files']): CommitIssue => ({ number, rank: number, sha: '', title: `#${number}`, files });

describe('live fences replayed on a wave', () => {
  // Wave 1: #1 fenced on src/a.ts, #2 on lib/d.ts. Round robin, files sorted:
  //  step 0: #1 writes lib/c.ts (outside; nobody holds it)            → granted, #1's fence widens
  //          #2 writes lib/c.ts (outside; #1 now holds it)            → refused: overlap
  //  step 1: #1 writes src/a.ts (inside)                              → fine
  //          #2 writes lib/d.ts (inside)                              → fine
  //  step 2: #2 writes src/b.ts (outside; #1's src/a.ts imports it)   → refused: import
  // Wave 2: #3 fenced on lib/e.ts writes package.json (a root file)   → needs a person
  const issues = [issue(1, edit('lib/c.ts', 'src/a.ts')), issue(2, edit('lib/c.ts', 'lib/d.ts', 'src/b.ts')), issue(3, edit('lib/e.ts', 'package.json'))];
  const fences = new Map([
    [1, ['src/a.ts']],
    [2, ['lib/d.ts']],
    [3, ['lib/e.ts']],
  ]);

  it('grants a free file, refuses one another run holds or imports, and sends root files to a person — by the lease rule', () => {
    const report = simulateLiveFences({ waves: [[1, 2], [3]], fences, issues, rules, base, decide: decideLeases });
    expect(report.events.map((e) => [e.wave, e.number, e.path, e.outcome, e.reason])).toEqual([
      [1, 1, 'lib/c.ts', 'granted', null],
      [1, 2, 'lib/c.ts', 'refused', 'overlap'],
      [1, 2, 'src/b.ts', 'refused', 'import'],
      [2, 3, 'package.json', 'person', 'root'],
    ]);
    expect(report.events[2]!.detail).toContain('src/a.ts');
    expect(report).toMatchObject({ writes: 7, inFence: 3, granted: 1, refused: 2, person: 1, issuesStopped: 2 });
    // What was written — #1: lib/c.ts, src/a.ts; #2: lib/d.ts — collides nowhere, though the commits did (lib/c.ts, a → b).
    expect(report.collisions).toEqual([]);
  });

  it('asks the rule only about writes outside the fence', () => {
    const asked: string[] = [];
    const counting: DecideLeases = (active, lanes, holder, r) => {
      asked.push(`${holder} ${lanes.join(',')}`);
      return decideLeases(active, lanes, holder, r);
    };
    simulateLiveFences({ waves: [[1, 2], [3]], fences, issues, rules, base, decide: counting });
    expect(asked).toEqual(['#1 lib/c.ts', '#2 lib/c.ts', '#2 src/b.ts', '#3 package.json']);
  });

  it('counts the collisions a rule that grants everything lets through', () => {
    const grantAll: DecideLeases = () => ({ status: 'granted' });
    const report = simulateLiveFences({ waves: [[1, 2]], fences, issues: issues.slice(0, 2), rules, base, decide: grantAll });
    expect(report.collisions.map((c) => [c.a, c.b, c.evidence.map((e) => e.kind)])).toEqual([[1, 2, ['path', 'import']]]);
  });

  it('lets a serial run, which holds the whole repository, write anywhere but a control file (a manifest needs a person)', () => {
    const report = simulateLiveFences({ waves: [[3]], fences, issues, rules, base, decide: decideLeases, serialIssues: new Set([3]) });
    expect(report.events.map((e) => [e.path, e.outcome, e.reason])).toEqual([['package.json', 'person', 'control']]);
  });

  it('sends a control file only a folder of the fence holds to a person, as the live fence refuses it; one the fence names is written (red team E, E16)', () => {
    const planted = [issue(4, edit('lib/.npmrc', 'lib/c.ts', 'lib/package.json', 'lib/vitest.config.ts'))];
    const lane = simulateLiveFences({ waves: [[4]], fences: new Map([[4, ['lib']]]), issues: planted, rules, base, decide: decideLeases });
    expect(lane.events.map((e) => [e.path, e.outcome, e.reason])).toEqual([
      ['lib/.npmrc', 'person', 'control'],
      ['lib/package.json', 'person', 'control'],
      ['lib/vitest.config.ts', 'person', 'control'],
    ]);
    expect(lane).toMatchObject({ writes: 4, inFence: 1, person: 3, issuesStopped: 1 });
    const named = simulateLiveFences({ waves: [[4]], fences: new Map([[4, ['lib', 'lib/package.json']]]), issues: planted, rules, base, decide: decideLeases });
    expect(named.events.map((e) => e.path)).toEqual(['lib/.npmrc', 'lib/vitest.config.ts']);
    expect(named.inFence).toBe(2);
  });
});

describe('the backtest report of live fences', () => {
  it('replays the plan at the dirs grade and validates against the schema', () => {
    const commits: HistoryCommit[] = [
      { sha: '1'.repeat(40), parents: ['0'.repeat(40)], subject: 'a (#1)', files: edit('src/a.ts', 'lib/e.ts') },
      { sha: '2'.repeat(40), parents: ['1'.repeat(40)], subject: 'c (#2)', files: edit('lib/c.ts') },
    ];
    const report = BacktestReportSchema.parse(
      runBacktest({ commits, repo, range: { base: '0'.repeat(40), until: '2'.repeat(40), since: null }, grade: 'dirs', maxFiles: 8 }),
    );
    // #1 names src/ and lib/, #2 names lib/: they conflict, so they never share a wave; each writes inside its fence.
    expect(report.liveFences).toMatchObject({ writes: 3, inFence: 3, granted: 0, refused: 0, person: 0, collisions: 0, planViolations: 0 });
    expect(runBacktest({ commits, repo, range: { base: '0'.repeat(40), until: '2'.repeat(40), since: null }, grade: 'dirs', maxFiles: 8, decide: null }).liveFences).toBeNull();
  });
});

describe('live fences, for any history', () => {
  const scenarioArb = repoArb.chain((r) =>
    fc
      .record({
        history: historyArb(r),
        grade: fc.constantFrom('files' as const, 'dirs' as const, 'title' as const),
        waveSize: fc.integer({ min: 1, max: 5 }),
        contentionDepth: fc.integer({ min: 1, max: 2 }),
        inference: fc.constantFrom('suggest' as const, 'plan' as const),
      })
      .map((rest) => ({ r, ...rest })),
  );

  it('accounts for every write once, and leaves no two runs of a wave writing truly conflicting files', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const report = runBacktest({
          commits: s.history.commits,
          repo: makeRepo({ files: s.r.files, imports: s.r.edges, packages: s.r.packages }),
          range: { base: 'f'.repeat(40), until: 'e'.repeat(40), since: null },
          grade: s.grade,
          maxFiles: 4,
          options: { waveSize: s.waveSize, contentionDepth: s.contentionDepth, inference: s.inference },
        });
        const f = report.liveFences!;
        expect(f.inFence + f.granted + f.refused + f.person).toBe(f.writes);
        const dispatched = new Set(report.waves.flat());
        expect(f.writes).toBe(report.issues.filter((i) => dispatched.has(i.number)).reduce((sum, i) => sum + i.files.length, 0));
        expect(f.collisionPairs).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});
