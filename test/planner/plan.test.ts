import { describe, expect, it } from 'vitest';
import { analyzePlan, createRepoTree, PlanSchema, planWaves, rankIssues, rootFilesOf, verifyPlan, type BacklogIssue, type PlanInput, type PlanOptionsInput } from '@waves/planner';
import { assertValidPlan } from '../helpers/assert-valid-plan.js';
import { issue, NOW } from '../helpers/issues.js';
import { makeRepo } from '../helpers/repo.js';

const repo = makeRepo({
  files: [
    'package.json',
    'pnpm-lock.yaml',
    'README.md',
    'docs/guide.md',
    'packages/core/package.json',
    'packages/core/src/index.ts',
    'packages/core/src/types.ts',
    'packages/core/src/money.ts',
    'packages/api/package.json',
    'packages/api/src/server.ts',
    'packages/api/src/routes.ts',
    'packages/api/src/util.ts',
    'packages/web/package.json',
    'packages/web/src/app.ts',
    'packages/web/src/view.ts',
    'tools/gen.ts',
  ],
  imports: [
    ['packages/api/src/server.ts', 'packages/api/src/routes.ts'],
    ['packages/api/src/routes.ts', 'packages/core/src/money.ts'],
    ['packages/core/src/money.ts', 'packages/core/src/types.ts'],
    ['packages/web/src/app.ts', 'packages/web/src/view.ts'],
  ],
  packages: [
    { name: '@x/core', dir: 'packages/core' },
    { name: '@x/api', dir: 'packages/api' },
    { name: '@x/web', dir: 'packages/web' },
  ],
});

function plan(issues: BacklogIssue[], options: PlanOptionsInput = {}, extra: Partial<PlanInput> = {}) {
  const input: PlanInput = { issues, repo, options: { maxWaves: 10, ...options }, now: NOW, ...extra };
  const analysis = analyzePlan(input);
  assertValidPlan(analysis.plan, input);
  return analysis;
}

const touching = (n: number, ...paths: string[]) => issue(n, { body: paths.map((p) => `- \`${p}\``).join('\n') });
const waveNumbers = (p: ReturnType<typeof plan>) => p.plan.waves.map((w) => w.issues.map((i) => i.number));

describe('select', () => {
  it('ranks by priority label, then sortOrder, then createdAt, then number', () => {
    const ranked = rankIssues([
      issue(1, { labels: [], createdAt: '2026-01-01T00:00:00Z' }),
      issue(2, { labels: ['P2'], createdAt: '2026-01-05T00:00:00Z' }),
      issue(3, { labels: ['priority:critical'], createdAt: '2026-01-09T00:00:00Z' }),
      issue(4, { labels: ['P2'], createdAt: '2026-01-03T00:00:00Z' }),
      issue(5, { labels: ['P2'], sortOrder: 1, createdAt: '2026-01-08T00:00:00Z' }),
      issue(6, { labels: ['priority:high', 'P3'], createdAt: '2026-01-09T00:00:00Z' }),
      issue(7, { labels: ['P2'], createdAt: '2026-01-03T00:00:00Z' }),
      issue(8, { labels: ['priority: low'], createdAt: null }),
    ]);
    expect(ranked.map((i) => i.number)).toEqual([3, 6, 5, 4, 7, 2, 8, 1]);
  });

  it('takes open issues only, the top N', () => {
    const result = plan([touching(1, 'README.md'), issue(2, { state: 'closed', body: '`docs/guide.md`' }), touching(3, 'docs/guide.md')], { top: 1 });
    expect(result.selected.map((i) => i.number)).toEqual([1]);
    expect(result.plan.summary.evaluated).toBe(1);
  });
});

describe('classify', () => {
  it('sends an issue that names nothing resolvable to triage with the reason', () => {
    const result = plan([issue(1, { body: 'It is slow. See `packages/nope/thing`.' })]);
    expect(result.plan.triage).toEqual([
      { number: 1, title: 'Issue 1', url: null, reason: 'no path, lane or label resolves to the repository (unresolved: packages/nope/thing)' },
    ]);
  });

  it('sends a dependency cycle to triage', () => {
    const result = plan([
      issue(1, { body: '`docs/guide.md`\nDepends on #2' }),
      issue(2, { body: '`README.md`\nDepends on #1' }),
      touching(3, 'packages/web/src/app.ts'),
    ]);
    expect(result.plan.triage.map((t) => [t.number, t.reason])).toEqual([
      [1, 'dependency cycle: #1 → #2 → #1'],
      [2, 'dependency cycle: #1 → #2 → #1'],
    ]);
  });

  it('sends an issue without acceptance criteria to triage when the config requires them', () => {
    const result = plan(
      [touching(1, 'docs/guide.md'), issue(2, { body: '`README.md`\n\n## Acceptance criteria\n- ok' })],
      { requireAcceptanceCriteria: true },
    );
    expect(result.plan.triage.map((t) => t.number)).toEqual([1]);
    expect(waveNumbers(result)).toEqual([[2]]);
  });

  it('subdivides an issue with more than 8 files, more than 3 subsystems or more than 15 steps', () => {
    const many = touching(1, 'packages/core/src/index.ts', 'packages/api/src/server.ts', 'packages/web/src/app.ts', 'tools/gen.ts');
    const three = touching(3, 'packages/core/src/index.ts', 'packages/api/src/server.ts', 'packages/web/src/view.ts');
    const steps = issue(2, { body: '`docs/guide.md`\n' + Array.from({ length: 16 }, (_, i) => `${i + 1}. step`).join('\n') });
    const result = plan([many, steps, three]);
    expect(result.plan.subdivide).toEqual([
      {
        number: 1,
        title: 'Issue 1',
        url: null,
        reason: '4 file(s) across 4 subsystem(s) (limits: 8 files, 3 subsystems, 15 steps)',
        childBudget: 4,
        paths: ['packages/api/src/server.ts', 'packages/core/src/index.ts', 'packages/web/src/app.ts', 'tools/gen.ts'],
      },
      { number: 2, title: 'Issue 2', url: null, reason: '16 steps (limits: 8 files, 3 subsystems, 15 steps)', childBudget: 2, paths: ['docs/guide.md'] },
    ]);
    // Code in three packages — a core change and two of its users — is one agent's work.
    expect(waveNumbers(result)).toEqual([[3]]);
  });

  it('sends a source change with its test, fixture and doc in three top-level directories to a wave, not to subdivide', () => {
    const flat = makeRepo({
      files: ['src/x.ts', 'src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts', 'src/e.ts', 'src/f.ts', 'src/g.ts', 'src/h.ts', 'test/x.test.ts', 'test/a.test.ts', 'test/b.test.ts', 'test/fixtures/x.json', 'docs/x.md', 'lib/y.ts', 'scripts/z.ts', 'README.md'],
    });
    const withCompanions = touching(1, 'src/x.ts', 'test/x.test.ts', 'test/fixtures/x.json', 'docs/x.md');
    // Eight source files and three tests: the tests do not push it past 8 files.
    const eightAndTests = touching(2, ...['x', 'a', 'b', 'c', 'd', 'e', 'f', 'g'].map((n) => `src/${n}.ts`), 'test/x.test.ts', 'test/a.test.ts', 'test/b.test.ts');
    const nine = touching(3, ...['x', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((n) => `src/${n}.ts`), 'test/x.test.ts');
    const threePlaces = touching(4, 'src/x.ts', 'lib/y.ts', 'scripts/z.ts', 'test/x.test.ts', 'README.md');
    const result = plan([withCompanions, eightAndTests, nine, threePlaces], { maxSubsystems: 2 }, { repo: flat });
    expect(result.plan.waves.flatMap((w) => w.issues.map((i) => i.number)).sort()).toEqual([1, 2]);
    expect(result.plan.subdivide.map((x) => [x.number, x.reason])).toEqual([
      [3, '9 file(s) across 1 subsystem(s), besides 1 test, fixture, doc, example or configuration file(s) (limits: 8 files, 2 subsystems, 15 steps)'],
      [4, '3 file(s) across 3 subsystem(s), besides 2 test, fixture, doc, example or configuration file(s) (limits: 8 files, 2 subsystems, 15 steps)'],
    ]);
  });

  it('sends a change with the manifests, configs and CI it brings along to a wave: only code spans subsystems', () => {
    const mono = makeRepo({
      files: ['package.json', '.github/workflows/ci.yml', 'knip.ts', 'packages/a/package.json', 'packages/a/src/x.ts', 'packages/b/package.json', 'packages/b/vite.config.ts', 'packages/c/package.json', 'packages/c/.eslintrc.cjs', 'packages/c/src/i18n/en.json', 'packages/d/package.json', 'packages/d/src/y.ts'],
      packages: ['a', 'b', 'c', 'd'].map((n) => ({ name: `@m/${n}`, dir: `packages/${n}` })),
    });
    // One source file, and the wiring of four packages, the root and CI around it.
    const bump = touching(1, 'packages/a/src/x.ts', 'packages/b/vite.config.ts', 'packages/c/.eslintrc.cjs', 'packages/c/src/i18n/en.json', 'packages/d/package.json', 'package.json', '.github/workflows/ci.yml', 'knip.ts');
    // No code at all: a sweep of manifests, judged on its files alone.
    const sweep = touching(2, 'packages/a/package.json', 'packages/b/package.json', 'packages/c/package.json');
    // Code in three packages is three subsystems.
    const wide = touching(3, 'packages/a/src/x.ts', 'packages/d/src/y.ts', 'packages/b/vite.config.ts', 'packages/c/src/i18n/en.json');
    const result = plan([bump, sweep, wide], { maxSubsystems: 1 }, { repo: mono });
    expect(result.scopes.get(1)!.size).toEqual({ files: 2, subsystems: ['packages/a'], companions: 6 });
    expect(result.scopes.get(2)!.size).toEqual({ files: 3, subsystems: [], companions: 0 });
    expect(result.plan.subdivide.map((x) => [x.number, x.reason])).toEqual([
      [3, '2 file(s) across 2 subsystem(s), besides 2 test, fixture, doc, example or configuration file(s) (limits: 8 files, 1 subsystems, 15 steps)'],
    ]);
  });

  it('defers an issue that waits for an open issue outside the selection, and notes satisfied ones', () => {
    const result = plan(
      [
        issue(1, { labels: ['P0'], body: '`docs/guide.md`\nDepends on #9' }),
        issue(2, { labels: ['P0'], body: '`README.md`\nBlocked by #8 and #7' }),
        issue(7, { state: 'closed' }),
        issue(9, { body: '`packages/web/src/app.ts`' }),
      ],
      { top: 2 },
    );
    expect(result.plan.deferred).toEqual([{ number: 1, title: 'Issue 1', url: null, reason: 'waits for #9 (open, not in this plan)', waitsFor: [9] }]);
    expect(waveNumbers(result)).toEqual([[2]]);
    expect(result.plan.warnings.map((w) => w.message)).toEqual([
      'depends on #7, which is closed: satisfied',
      'depends on #8, which is not in the backlog: treated as done',
    ]);
  });

  it('defers an issue whose dependency was triaged, transitively', () => {
    const result = plan([issue(1, { body: 'vague' }), issue(2, { body: '`README.md`\nafter #1' }), issue(3, { body: '`docs/guide.md` depends on #2' })]);
    expect(result.plan.deferred.map((d) => [d.number, d.reason])).toEqual([
      [2, 'waits for #1 (triage)'],
      [3, 'waits for #2 (deferred)'],
    ]);
  });

  it('holds an issue whose scope overlaps a lease of another holder, not an expired one or our own', () => {
    const leases = [
      { id: 'l1', lane: 'packages/api', holder: 'agent-7', until: '2026-11-29T13:00:00.000Z' },
      { id: 'l2', lane: 'docs', holder: 'agent-8', until: '2026-11-29T11:00:00.000Z' },
      { id: 'l3', lane: 'web', holder: 'me', until: '2026-11-29T13:00:00.000Z' },
    ];
    const result = plan([touching(1, 'packages/api/src/routes.ts'), touching(2, 'docs/guide.md'), touching(3, 'packages/web/src/app.ts')], { holder: 'me' }, { leases });
    expect(result.plan.held).toEqual([
      {
        number: 1,
        title: 'Issue 1',
        url: null,
        lease: { id: 'l1', lane: 'packages/api', holder: 'agent-7', until: '2026-11-29T13:00:00.000Z' },
        reason: 'its scope overlaps packages/api, leased by agent-7 until 2026-11-29T13:00:00.000Z',
      },
    ]);
    expect(waveNumbers(result)).toEqual([[2, 3]]);
  });

  it('holds an issue whose files import, or are imported by, a leased file within the contention depth', () => {
    // routes.ts imports money.ts; money.ts imports types.ts.
    const leases = [{ id: 'l1', lane: 'packages/core/src/money.ts', holder: 'agent-7', until: '2026-11-29T13:00:00.000Z' }];
    const issues = [touching(1, 'packages/api/src/routes.ts'), touching(2, 'packages/core/src/types.ts'), touching(3, 'packages/api/src/server.ts'), touching(4, 'packages/web/src/app.ts')];
    const result = plan(issues, {}, { leases });
    expect(result.plan.held.map((h) => [h.number, h.reason])).toEqual([
      [1, 'packages/api/src/routes.ts imports packages/core/src/money.ts, and packages/core/src/money.ts is leased by agent-7 until 2026-11-29T13:00:00.000Z'],
      [2, 'packages/core/src/money.ts imports packages/core/src/types.ts, and packages/core/src/money.ts is leased by agent-7 until 2026-11-29T13:00:00.000Z'],
    ]);
    expect(waveNumbers(result)).toEqual([[3, 4]]);
    // Two hops reach server.ts too; depth 0 holds only what the lease covers.
    expect(plan(issues, { contentionDepth: 2 }, { leases }).plan.held.map((h) => h.number)).toEqual([1, 2, 3]);
    expect(plan(issues, { contentionDepth: 0 }, { leases }).plan.held).toEqual([]);
  });

  it('has the independent checker reject a plan that ignores a live lease', () => {
    const issues = [touching(1, 'packages/api/src/routes.ts'), touching(2, 'packages/web/src/app.ts'), touching(3, 'package.json')];
    const unleased = planWaves({ issues, repo, options: { maxWaves: 10 }, now: NOW });
    const leases = [
      { id: 'l1', lane: 'packages/core/src/money.ts', holder: 'agent-7', until: '2026-11-29T13:00:00.000Z' },
      { id: 'l2', lane: 'pnpm-lock.yaml', holder: 'agent-8', until: '2026-11-29T13:00:00.000Z' },
    ];
    const violations = verifyPlan(unleased, { issues, repo, options: { maxWaves: 10 }, now: NOW, leases });
    expect(violations.filter((v) => v.rule === 'lease').map((v) => v.message)).toEqual([
      '#1 contends through imports with packages/core/src/money.ts, leased by agent-7',
      '#3 touches root files and so does pnpm-lock.yaml, leased by agent-8',
    ]);
  });

  it('holds a serial issue while anyone else holds any lease, an issue touching root files while root files are leased, and every issue under a whole-repository lease', () => {
    const elsewhere = [{ id: 'l1', lane: 'docs', holder: 'agent-7', until: '2026-11-29T13:00:00.000Z' }];
    const result = plan([touching(1, 'packages/core/src/types.ts'), touching(2, 'packages/web/src/view.ts'), touching(3, 'package.json')], { serial: ['packages/core/**'] }, { leases: elsewhere });
    expect(result.plan.held.map((h) => h.number)).toEqual([1]);
    expect(waveNumbers(result)).toEqual([[2, 3]]);
    const lockfile = [{ id: 'l3', lane: 'pnpm-lock.yaml', holder: 'agent-9', until: '2026-11-29T13:00:00.000Z' }];
    const rooted = plan([touching(1, 'package.json'), touching(2, 'packages/web/src/view.ts')], {}, { leases: lockfile });
    expect(rooted.plan.held.map((h) => [h.number, h.lease.lane])).toEqual([[1, 'pnpm-lock.yaml']]);
    expect(waveNumbers(rooted)).toEqual([[2]]);
    const whole = [{ id: 'l2', lane: '.', holder: 'agent-8', until: '2026-11-29T13:00:00.000Z' }];
    const blocked = plan([touching(1, 'package.json'), touching(2, 'packages/web/src/view.ts')], {}, { leases: whole });
    expect(blocked.plan.held.map((h) => [h.number, h.lease.lane])).toEqual([[1, '.'], [2, '.']]);
    expect(blocked.plan.waves).toEqual([]);
  });

  it('runs an issue touching a configured serial path alone', () => {
    const result = plan([touching(1, 'docs/guide.md'), touching(2, 'packages/web/src/view.ts'), touching(3, 'README.md')], {
      serial: ['docs/**'],
    });
    expect(result.plan.waves.map((w) => [w.kind, w.issues.map((i) => i.number)])).toEqual([
      ['serial_singleton', [1]],
      ['parallel', [2, 3]],
    ]);
    expect(result.plan.waves[0]!.issues[0]!.serial).toBe('docs/guide.md (serial docs/**)');
  });

  it('lets an issue touching a root file share its wave, but never with another touching root files', () => {
    // package.json and the lockfile are two files, but one dependency change rewrites both.
    const result = plan([touching(1, 'package.json'), touching(2, 'pnpm-lock.yaml'), touching(3, 'packages/web/src/view.ts'), touching(4, 'README.md')]);
    expect(result.plan.waves.map((w) => [w.kind, w.issues.map((i) => i.number)])).toEqual([
      ['parallel', [1, 3, 4]],
      ['parallel', [2]],
    ]);
    expect(result.plan.waves[0]!.issues[0]!.serial).toBeNull();
    expect(result.plan.conflicts).toEqual([{ a: 1, b: 2, kind: 'path', detail: 'both touch root files: package.json (#1); pnpm-lock.yaml (#2)' }]);
  });
});

describe('new directories', () => {
  it('lets two issues editing different files of a directory another issue creates share a wave, apart from the creator', () => {
    const body = (...lines: string[]) => issue(0, { body: ['## Files', ...lines].join('\n') }).body;
    const creates = issue(1, { body: body('- `packages/web/src/charts/bar.ts` (create)') });
    const editsBar = issue(2, { body: body('- `packages/web/src/charts/bar.ts` (edit)') });
    const editsPie = issue(3, { body: body('- `packages/web/src/charts/pie/pie.ts` (edit)') });
    const alsoCreates = issue(4, { body: body('- `packages/web/src/charts/line.ts`') });
    const result = plan([creates, editsBar, editsPie, alsoCreates]);
    expect(result.plan.waves.map((w) => w.issues.map((i) => [i.number, i.paths]))).toEqual([
      [[1, ['packages/web/src/charts/']]],
      [
        [2, ['packages/web/src/charts/bar.ts']],
        [3, ['packages/web/src/charts/pie/pie.ts']],
      ],
      [[4, ['packages/web/src/charts/']]],
    ]);
  });
});

describe('root files', () => {
  it('finds the root files an issue touches: the files, a directory holding one, the root it names', () => {
    const tree = createRepoTree(['package.json', 'tsconfig.base.json', '.github/workflows/ci.yml', 'packages/web/yarn.lock', 'packages/web/src/a.ts', 'README.md']);
    expect(rootFilesOf([{ path: 'tsconfig.base.json', dir: false }, { path: 'packages/web/src/a.ts', dir: false }], tree, false)).toEqual(['tsconfig.base.json']);
    expect(rootFilesOf([{ path: '.github', dir: true }, { path: 'packages/web', dir: true }], tree, false)).toEqual(['.github/', 'packages/web/yarn.lock']);
    expect(rootFilesOf([{ path: 'README.md', dir: false }], tree, true)).toEqual(['./']);
    expect(rootFilesOf([{ path: 'README.md', dir: false }, { path: 'packages/web/src', dir: true }], tree, false)).toEqual([]);
  });

  it('has the independent checker reject two issues touching root files in one wave', () => {
    const issues = [touching(1, 'package.json'), touching(2, 'pnpm-lock.yaml')];
    const good = planWaves({ issues, repo, options: { maxWaves: 10 }, now: NOW });
    expect(good.waves).toHaveLength(2);
    const merged = { ...good, waves: [{ ...good.waves[0]!, issues: [...good.waves[0]!.issues, ...good.waves[1]!.issues] }], summary: { ...good.summary, waves: 1 } };
    expect(verifyPlan(merged, { issues, repo, options: { maxWaves: 10 }, now: NOW }).map((v) => v.message)).toEqual(['wave 1: #1 and #2 both touch root files']);
  });
});

describe('control files under a folder of the fence', () => {
  it('lists a control file the issue names beside the folder that holds it, at every granularity, and leaves the waves as they were (red team E, E16)', () => {
    const named = issue(1, { body: 'Add a `build` script to `packages/web/package.json` and use it in `packages/web/src/app.ts`.', labels: ['lane:web'] });
    const other = touching(2, 'packages/web/src/view.ts');
    for (const granularity of ['file', 'dir', 'package'] as const) {
      const p = plan([named, other], { granularity });
      expect(p.scopes.get(1)!.namedControlFiles).toEqual(['packages/web/package.json']);
      const entry = p.plan.waves.flatMap((w) => w.issues).find((i) => i.number === 1)!;
      expect(entry.paths, granularity).toEqual(['packages/web/', 'packages/web/package.json']);
      // The folder holds the file: the two issues still conflict as they did.
      expect(waveNumbers(p), granularity).toEqual([[1], [2]]);
    }
    // A folder alone names none of the control files under it, nor a lane's files it holds.
    const lane = plan([issue(3, { body: 'Restyle the view.', labels: ['lane:web'] })]);
    expect(lane.scopes.get(3)!.namedControlFiles).toEqual([]);
    expect(lane.plan.waves[0]!.issues[0]!.paths).toEqual(['packages/web/']);
  });
});

describe('the repository root', () => {
  it('reads an issue naming the root (`./`, `/`, "files at the root") as touching its files, which conflict with any other root file', () => {
    const result = plan([
      issue(1, { body: 'Tidy the files at the root.' }),
      touching(2, 'docs/guide.md'),
      issue(3, { body: 'Sort out `./` and `/etc/passwd`' }),
      touching(4, 'pnpm-lock.yaml'),
    ]);
    expect(result.plan.waves.map((w) => [w.kind, w.issues.map((i) => i.number)])).toEqual([
      ['parallel', [1, 2]],
      ['parallel', [3]],
      ['parallel', [4]],
    ]);
    const first = result.plan.waves[0]!.issues[0]!;
    expect(first.serial).toBeNull();
    expect(first.paths).toEqual(['README.md', 'package.json', 'pnpm-lock.yaml']);
    expect(result.plan.conflicts.filter((c) => c.a === 1)).toEqual([
      { a: 1, b: 3, kind: 'path', detail: 'both touch README.md' },
      { a: 1, b: 4, kind: 'path', detail: 'both touch pnpm-lock.yaml' },
    ]);
    // An absolute path still leaves the repository: dropped, with a warning.
    expect(result.plan.warnings).toEqual([{ number: 3, message: 'dropped /etc/passwd: absolute path' }]);
  });

  it('keeps an issue naming the root apart from other root files when its only root file is none of them', () => {
    const bare = makeRepo({ files: ['README.md', 'package.json', 'src/a.ts', 'src/b.ts'] });
    const result = plan([issue(1, { body: 'Reformat `/`' }), touching(2, 'package.json'), touching(3, 'src/a.ts')], {}, { repo: bare });
    expect(result.plan.waves.map((w) => w.issues.map((i) => i.paths))).toEqual([[['README.md', 'package.json'], ['src/a.ts']], [['package.json']]]);
    const lone = makeRepo({ files: ['README.md', 'src/a.ts', 'src/b.ts'] });
    const alone = plan([issue(1, { body: 'Reformat `/`' }), touching(2, 'src/a.ts')], {}, { repo: lone });
    expect(alone.plan.waves.map((w) => [w.kind, w.issues.map((i) => i.paths)])).toEqual([['parallel', [['README.md'], ['src/a.ts']]]]);
    expect(alone.units.map((u) => u.rootFiles)).toEqual([['./'], []]);
  });
});

describe('conflicts and waves', () => {
  it('puts two issues touching one file in different waves', () => {
    const result = plan([touching(1, 'README.md'), touching(2, 'README.md')]);
    expect(waveNumbers(result)).toEqual([[1], [2]]);
    expect(result.plan.conflicts).toEqual([{ a: 1, b: 2, kind: 'path', detail: 'both touch README.md' }]);
  });

  it('puts an issue on a directory and an issue on a file inside it in different waves', () => {
    const result = plan([issue(1, { labels: ['lane:core'] }), touching(2, 'packages/core/src/money.ts')]);
    expect(result.plan.conflicts).toEqual([
      { a: 1, b: 2, kind: 'path', detail: 'packages/core/ contains packages/core/src/money.ts' },
      { a: 1, b: 2, kind: 'import', detail: 'packages/core/src/money.ts imports packages/core/src/types.ts' },
    ]);
    expect(waveNumbers(result)).toEqual([[1], [2]]);
  });

  it('separates issues whose files import each other, within the contention depth', () => {
    const issues = [touching(1, 'packages/api/src/server.ts'), touching(2, 'packages/core/src/money.ts')];
    expect(waveNumbers(plan(issues, { contentionDepth: 1 }))).toEqual([[1, 2]]);
    const deep = plan(issues, { contentionDepth: 2 });
    expect(waveNumbers(deep)).toEqual([[1], [2]]);
    expect(deep.plan.conflicts).toEqual([
      { a: 1, b: 2, kind: 'import', detail: 'packages/api/src/server.ts → packages/api/src/routes.ts → packages/core/src/money.ts' },
    ]);
    const direct = plan([touching(1, 'packages/api/src/routes.ts'), touching(2, 'packages/core/src/money.ts')]);
    expect(direct.plan.conflicts).toEqual([{ a: 1, b: 2, kind: 'import', detail: 'packages/api/src/routes.ts imports packages/core/src/money.ts' }]);
    expect(waveNumbers(plan([touching(1, 'packages/api/src/routes.ts'), touching(2, 'packages/core/src/money.ts')], { contentionDepth: 0 }))).toEqual([[1, 2]]);
  });

  it('separates an issue touching a JSON file from one whose file imports it (import)', () => {
    const json = makeRepo({ files: ['src/data.json', 'src/load.ts', 'src/other.ts'], imports: [['src/load.ts', 'src/data.json']] });
    const result = plan([touching(1, 'src/data.json'), touching(2, 'src/load.ts'), touching(3, 'src/other.ts')], {}, { repo: json });
    expect(result.plan.conflicts).toEqual([{ a: 1, b: 2, kind: 'import', detail: 'src/load.ts imports src/data.json' }]);
    expect(waveNumbers(result)).toEqual([[1, 3], [2]]);
  });

  it('makes two issues creating files in the same new directory conflict (path), and no one else', () => {
    const result = plan([
      touching(1, 'packages/web/src/charts/bar.ts'),
      touching(2, 'packages/web/src/charts/line.ts'),
      touching(3, 'packages/api/src/jobs/queue.ts'),
      touching(4, 'packages/web/src/view.ts'),
    ]);
    expect(result.plan.conflicts).toEqual([{ a: 1, b: 2, kind: 'path', detail: 'both touch packages/web/src/charts/' }]);
    expect(waveNumbers(result)).toEqual([[1, 3, 4], [2]]);
    expect(result.plan.waves[0]!.issues[0]!.paths).toEqual(['packages/web/src/charts/']);
    expect(result.plan.warnings).toEqual([]);
  });

  it('rolls a new directory up to the package of its nearest existing ancestor, or keeps a new package apart', () => {
    const issues = [touching(1, 'packages/web/src/charts/bar.ts'), touching(2, 'packages/search/src/index.ts'), touching(3, 'packages/web/src/app.ts')];
    const dir = plan(issues, { granularity: 'dir', contentionDepth: 0 });
    expect(dir.plan.waves.flatMap((w) => w.issues.map((i) => [i.number, i.paths]))).toEqual([
      [1, ['packages/web/src/charts/']],
      [2, ['packages/search/']],
      [3, ['packages/web/src/']],
    ]);
    expect(dir.plan.conflicts).toEqual([{ a: 1, b: 3, kind: 'path', detail: 'packages/web/src/ contains packages/web/src/charts/' }]);
    const pkg = plan(issues, { granularity: 'package', contentionDepth: 0 });
    expect(pkg.plan.waves.flatMap((w) => w.issues.map((i) => [i.number, i.paths]))).toEqual([
      [1, ['packages/web/']],
      [2, ['packages/search/']],
      [3, ['packages/web/']],
    ]);
    expect(waveNumbers(pkg)).toEqual([[1, 2], [3]]);
  });

  it('puts a dependency in an earlier wave', () => {
    const result = plan([issue(1, { body: '`README.md`\nDepends on #2' }), touching(2, 'docs/guide.md')]);
    expect(waveNumbers(result)).toEqual([[2], [1]]);
    expect(result.plan.waves[1]!.issues[0]!.dependsOn).toEqual([2]);
    expect(result.plan.conflicts).toEqual([{ a: 1, b: 2, kind: 'dependency', detail: '#1 depends on #2' }]);
  });

  it('rolls leaves up to directories or packages with the granularity', () => {
    const issues = [touching(1, 'packages/web/src/app.ts'), touching(2, 'packages/web/src/view.ts')];
    expect(waveNumbers(plan(issues, { contentionDepth: 0 }))).toEqual([[1, 2]]);
    const dir = plan(issues, { granularity: 'dir', contentionDepth: 0 });
    expect(waveNumbers(dir)).toEqual([[1], [2]]);
    expect(dir.plan.waves[0]!.issues[0]!.paths).toEqual(['packages/web/src/']);
    const pkg = plan([touching(1, 'packages/core/src/types.ts'), touching(2, 'packages/core/src/index.ts')], { granularity: 'package', contentionDepth: 0 });
    expect(pkg.plan.waves[0]!.issues[0]!.paths).toEqual(['packages/core/']);
    expect(waveNumbers(pkg)).toEqual([[1], [2]]);
  });

  it('moves waves past maxWaves to deferred', () => {
    const result = plan([touching(1, 'README.md'), touching(2, 'README.md'), touching(3, 'README.md')], { maxWaves: 2 });
    expect(waveNumbers(result)).toEqual([[1], [2]]);
    expect(result.plan.deferred).toEqual([{ number: 3, title: 'Issue 3', url: null, reason: 'beyond --max-waves 2 (would be wave 3)', waitsFor: [] }]);
  });

  it('caps waves at waveSize and fills earlier waves with higher-priority issues', () => {
    const free = [1, 2, 3, 4, 5].map((n) => issue(n, { labels: n === 5 ? ['P0'] : [], body: ['`README.md`', '`docs/guide.md`', '`packages/api/src/util.ts`', '`packages/web/src/view.ts`', '`packages/core/src/index.ts`'][n - 1]! }));
    const result = plan(free, { waveSize: 2, contentionDepth: 0 });
    // Within a wave, issues are listed in rank order: #5 is P0.
    expect(waveNumbers(result)).toEqual([[5, 1], [2, 3], [4]]);
  });

  it('produces a plan that validates against the exported schema', () => {
    const result = plan([touching(1, 'README.md'), issue(2, { body: 'nothing' })]);
    expect(PlanSchema.safeParse(JSON.parse(JSON.stringify(result.plan))).success).toBe(true);
    expect(result.plan.summaryLine).toBe('2 total issue(s) evaluated · 1 dispatchable · 0 subdivide · 1 triage');
  });

  it('gives the same plan for the same input', () => {
    const issues = [touching(1, 'README.md'), touching(2, 'packages/api/src/routes.ts'), touching(3, 'packages/core/src/money.ts')];
    expect(planWaves({ issues, repo, now: NOW })).toEqual(planWaves({ issues: [...issues].reverse(), repo, now: NOW }));
  });
});
