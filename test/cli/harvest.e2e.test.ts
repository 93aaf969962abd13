/**
 * `waves harvest` after a real `waves dispatch` of the example's first wave (#101, #102, #105) with
 * fake agents on temporary git repositories: the diff, the fence audit, the revert that touches
 * only out-of-fence files, verification re-run by waves (failing, hanging), commits of exactly
 * the in-fence paths with the right message, idempotence, runs without worktrees, and the
 * prediction accuracy.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleRepo, FAKE_AGENT_CONFIG, ROOT, waves } from '../helpers/example-repo.js';
import type { TempRepo } from '../helpers/temp-repo.js';

const FAKE_VERIFY = path.join(ROOT, 'test/fixtures/agents/fake-verify.mjs');
const IDENTITY = { GIT_AUTHOR_NAME: 'Harvester', GIT_AUTHOR_EMAIL: 'h@example.invalid', GIT_COMMITTER_NAME: 'Harvester', GIT_COMMITTER_EMAIL: 'h@example.invalid' };

interface Witness {
  changed: { path: string; change: string; from?: string }[];
  inFence: string[];
  outOfFence: { path: string; root: boolean }[];
  reverted: string[];
  verify: { status: string; exitCode: number | null; log: string; argv: string[] }[];
  commit: { sha: string; message: string; paths: string[] } | null;
  status: 'clean' | 'needs_person';
  reasons: string[];
  notes: string[];
  attributed: boolean;
}
interface HarvestReport {
  harvested: string;
  runs: { id: string; issue: { number: number }; result: string; already?: boolean; witness?: Witness; accuracy?: { precision: number | null; recall: number | null; recallByImports: number | null; missed: string[] } }[];
  needsPerson: { number: number; reasons: string[] }[];
  accuracy: { predicted: number; touched: number; changed: number; covered: number; precision: number | null; recall: number | null; sources: { source: string; predicted: number }[] };
}

let repo: TempRepo | null = null;
afterEach(async () => {
  await repo?.dispose();
  repo = null;
});

async function setUp(agents: Record<string, unknown>, verify: Record<string, string> = {}, extraConfig: Record<string, unknown> = {}) {
  repo = await exampleRepo({ agents: FAKE_AGENT_CONFIG, verify: [[process.execPath, FAKE_VERIFY, '{paths}']], ...extraConfig });
  const root = repo.root;
  const side = (name: string) => path.join(root, '..', `${path.basename(root)}-${name}`);
  writeFileSync(side('agents.json'), JSON.stringify(agents));
  writeFileSync(side('verify.json'), JSON.stringify(verify));
  const env = { FAKE_AGENT_SCRIPT: side('agents.json'), FAKE_VERIFY_SCRIPT: side('verify.json'), FAKE_VERIFY_TRACE: side('verify-trace.jsonl'), ...IDENTITY };
  const git = async (cwd: string, ...args: string[]) => (await repo!.git('-C', cwd, ...args)).stdout;
  return {
    root,
    env,
    worktree: (n: number) => path.join(root, '.waves', 'worktrees', `issue-${n}`),
    dispatch: (...args: string[]) => waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', ...args], root, env),
    harvest: async (...args: string[]) => {
      const result = await waves(['harvest', '--json', ...args], root, env);
      return { exitCode: result.exitCode, stderr: result.stderr, report: (result.stdout ? JSON.parse(result.stdout) : null) as HarvestReport };
    },
    run: (args: string[]) => waves(args, root, env),
    git,
    verifyTrace: () => (existsSync(side('verify-trace.jsonl')) ? readFileSync(side('verify-trace.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { cwd: string; args: string[]; pid: number }) : []),
  };
}

const byIssue = (report: HarvestReport, n: number) => report.runs.find((r) => r.issue.number === n)!;

// The example's first wave: #101 (bug; checkout.ts + stripe.ts), #102 (lane:web; discounts.ts + packages/web/), #105 (bug; cart.ts + money.ts).
const WAVE_ONE = {
  101: { edit: { 'packages/api/src/routes/checkout.ts': 'export const fixed = 1;\n', 'packages/api/src/extra.ts': "import { fixed } from './routes/checkout.js';\nexport const extra = fixed;\n", 'package.json': '{"name":"changed"}\n' } },
  102: {
    edit: { 'packages/web/src/index.ts': 'export {};\n', 'packages/web/src/components/Discount.tsx': 'export const D = 1;\n', 'packages/core/src/discounts.ts': 'export const d = 2;\n' },
    delete: ['packages/web/src/hooks/useCart.ts'],
    rename: [['packages/web/src/components/CartView.tsx', 'packages/web/src/components/Cart.tsx']],
  },
  105: { edit: { 'packages/core/src/cart.ts': 'export const cart = 2;\n' } },
};

describe('waves harvest', () => {
  it('audits the fence, reverts only out-of-fence files, commits exactly the in-fence paths, and never twice', async () => {
    const t = await setUp(WAVE_ONE, { 'issue-105': 'fail' });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const baseSha = (await t.git(t.root, 'rev-parse', 'HEAD')).trim();

    // Audit only: nothing is reverted or committed.
    const first = await t.harvest();
    expect(first.exitCode, first.stderr).toBe(4);
    const w101 = byIssue(first.report, 101).witness!;
    expect(w101.changed.map((c) => [c.path, c.change])).toEqual([
      ['package.json', 'modified'],
      ['packages/api/src/extra.ts', 'added'],
      ['packages/api/src/routes/checkout.ts', 'modified'],
    ]);
    expect(w101.inFence).toEqual(['packages/api/src/routes/checkout.ts']);
    expect(w101.outOfFence).toEqual([
      { path: 'package.json', change: 'modified', root: true },
      { path: 'packages/api/src/extra.ts', change: 'added', root: false },
    ]);
    expect(w101.status).toBe('needs_person');
    expect(w101.reasons.join(' ')).toMatch(/2 file\(s\) changed outside the fence.*root file\(s\) package\.json/);
    const w102 = byIssue(first.report, 102).witness!;
    expect(w102.changed.map((c) => [c.path, c.change])).toEqual([
      ['packages/core/src/discounts.ts', 'modified'],
      ['packages/web/src/components/Cart.tsx', 'added'],
      ['packages/web/src/components/CartView.tsx', 'deleted'],
      ['packages/web/src/components/Discount.tsx', 'added'],
      ['packages/web/src/hooks/useCart.ts', 'deleted'],
      ['packages/web/src/index.ts', 'modified'],
    ]);
    expect(w102.status).toBe('clean');
    expect(w102.verify.map((v) => v.status)).toEqual(['passed']);
    const w105 = byIssue(first.report, 105).witness!;
    expect(w105.verify.map((v) => [v.status, v.exitCode])).toEqual([['failed', 3]]);
    expect(w105.reasons.join(' ')).toMatch(/verification failed: .*fake-verify\.mjs packages\/core\/src\/cart\.ts packages\/core\/src\/money\.ts \(exit code 3\)/);
    expect(readFileSync(w105.verify[0]!.log, 'utf8')).toContain('verifying packages/core/src/cart.ts');
    expect(path.basename(w105.verify[0]!.log)).toMatch(/^verify-105-\d{8}T\d{9}Z\.log$/);
    expect(first.report.needsPerson.map((p) => p.number)).toEqual([101, 105]);
    // Verification ran in a clean tree of each run, with the issue's paths — but not where out-of-fence
    // changes remain (package.json could be what it runs).
    expect(w101.reasons.join(' ')).toMatch(/verification not run: out-of-fence changes remain \(revert them with --revert-out-of-fence\)/);
    expect(w101.verify).toEqual([]);
    expect(t.verifyTrace().map((v) => [path.basename(v.cwd).replace(/^resolve-(\d+)-.*$/, 'issue-$1'), v.args])).toEqual([
      ['issue-102', ['packages/core/src/discounts.ts', 'packages/web/']],
      ['issue-105', ['packages/core/src/cart.ts', 'packages/core/src/money.ts']],
    ]);
    for (const n of [101, 102, 105]) expect((await t.git(t.root, 'rev-parse', `waves/issue-${n}`)).trim()).toBe(baseSha);
    expect(readFileSync(path.join(t.worktree(101), 'package.json'), 'utf8')).toBe('{"name":"changed"}\n');

    // Revert and commit.
    const second = await t.harvest('--revert-out-of-fence', '--commit');
    expect(second.exitCode, second.stderr).toBe(4); // #105 still fails verification
    const c101 = byIssue(second.report, 101).witness!;
    expect(c101.reverted).toEqual(['package.json', 'packages/api/src/extra.ts']);
    expect(c101.status).toBe('clean');
    expect(c101.commit?.paths).toEqual(['packages/api/src/routes/checkout.ts']);
    // The revert restored the out-of-fence files and touched nothing else.
    expect(readFileSync(path.join(t.worktree(101), 'package.json'), 'utf8')).toBe(readFileSync(path.join(t.root, 'package.json'), 'utf8'));
    expect(existsSync(path.join(t.worktree(101), 'packages/api/src/extra.ts'))).toBe(false);
    expect(readFileSync(path.join(t.worktree(101), 'packages/api/src/routes/checkout.ts'), 'utf8')).toBe('export const fixed = 1;\n');
    // …and kept the agent's versions aside.
    const backup = c101.notes.join(' ').match(/are in (\S+)$/)![1]!;
    expect(readFileSync(path.join(t.root, backup, 'package.json'), 'utf8')).toBe('{"name":"changed"}\n');
    expect(readFileSync(path.join(t.root, backup, 'packages/api/src/extra.ts'), 'utf8')).toMatch(/^import \{ fixed \}/);
    // Each commit holds exactly the in-fence paths, on the issue's branch, citing the issue.
    const show = async (n: number) => (await t.git(t.root, 'show', '--name-status', '--format=%s%n%b%n%an', `waves/issue-${n}`)).trim();
    expect(await show(101)).toBe(
      [`fix(api): Checkout charges twice when the payment provider times out (#101)`, `Waves-Run: ${byIssue(second.report, 101).id}`, '', 'Harvester', '', 'M\tpackages/api/src/routes/checkout.ts'].join('\n'),
    );
    const shown102 = await show(102);
    expect(shown102.split('\n')[0]).toBe('feat(web): Show the discount line in the cart view (#102)');
    expect(shown102.split('\n').filter((l) => /^[AMDR]\d*\t/.test(l))).toEqual([
      'M\tpackages/core/src/discounts.ts',
      'R100\tpackages/web/src/components/CartView.tsx\tpackages/web/src/components/Cart.tsx',
      'A\tpackages/web/src/components/Discount.tsx',
      'D\tpackages/web/src/hooks/useCart.ts',
      'M\tpackages/web/src/index.ts',
    ]);
    expect((await t.git(t.root, 'rev-parse', 'waves/issue-105')).trim()).toBe(baseSha);
    expect((await t.git(t.root, 'rev-parse', 'main')).trim()).toBe(baseSha);
    expect((await t.git(t.worktree(101), 'status', '--porcelain')).trim()).toBe('');
    // The witness is kept in the run record.
    const record = JSON.parse(readFileSync(path.join(t.root, '.dispatch-runs', `${byIssue(second.report, 101).id}.json`), 'utf8')) as { witness: Witness };
    expect(record.witness.commit?.sha).toBe((await t.git(t.root, 'rev-parse', 'waves/issue-101')).trim());

    // Idempotent: a second harvest commits nothing again.
    const tips = await Promise.all([101, 102].map(async (n) => (await t.git(t.root, 'rev-parse', `waves/issue-${n}`)).trim()));
    const third = await t.harvest('--revert-out-of-fence', '--commit');
    expect(third.exitCode).toBe(4);
    expect(byIssue(third.report, 101).already).toBe(true);
    expect(byIssue(third.report, 102).already).toBe(true);
    expect(await Promise.all([101, 102].map(async (n) => (await t.git(t.root, 'rev-parse', `waves/issue-${n}`)).trim()))).toEqual(tips);
    expect((await t.git(t.root, 'rev-list', '--count', `${baseSha}..waves/issue-101`)).trim()).toBe('1');

    // The human report says the same.
    const table = await t.run(['harvest', '--wave', '1']);
    expect(table.exitCode).toBe(4);
    expect(table.stdout).toContain('Harvest of wave 1: 2 of 3 run(s) witnessed clean');
    expect(table.stdout).toMatch(/Needs a person:\n {2}#105: verification failed/);
    expect(table.stdout).toContain('Prediction accuracy');
    const status = await t.run(['status']);
    expect(status.stdout).toMatch(new RegExp(`#101 Checkout.*committed ${c101.commit!.sha.slice(0, 10)}`));
    expect(status.stdout).toMatch(/#105 Cart total.*needs a person/);
  }, 120_000);

  it('reports the prediction accuracy of the wave and over the history', async () => {
    // #105 also touches the core barrel, which re-exports its cart.ts: one import away.
    const t = await setUp({ ...WAVE_ONE, 105: { edit: { ...WAVE_ONE[105].edit, 'packages/core/src/index.ts': "export * from './cart.js';\n" } } });
    await t.dispatch('--worktree');
    const { report } = await t.harvest();
    // #101 predicted checkout.ts and stripe.ts, changed checkout.ts, package.json and extra.ts — a new file that imports checkout.ts.
    expect(byIssue(report, 101).accuracy).toMatchObject({ precision: 0.5, recall: 0.333, recallByImports: 0.667, missed: ['package.json', 'packages/api/src/extra.ts'] });
    // #102 predicted discounts.ts and packages/web/, changed six files under them.
    expect(byIssue(report, 102).accuracy).toMatchObject({ precision: 1, recall: 1, missed: [] });
    // #105 predicted cart.ts and money.ts, changed cart.ts and index.ts, which imports cart.ts.
    expect(byIssue(report, 105).accuracy).toMatchObject({ precision: 0.5, recall: 0.5, recallByImports: 1, missed: ['packages/core/src/index.ts'] });
    expect(report.accuracy).toMatchObject({ predicted: 6, touched: 4, changed: 11, covered: 8, precision: 0.667, recall: 0.727, recallByImports: 0.909 });
    expect(report.accuracy.sources.map((s) => s.source)).toEqual(['body', 'label']);

    const history = await t.run(['harvest', '--history', '--json']);
    expect(history.exitCode).toBe(0);
    const h = JSON.parse(history.stdout) as { runs: unknown[]; accuracy: { precision: number; recall: number }; hints: string[] };
    expect(h.runs).toHaveLength(3);
    expect(h.accuracy).toMatchObject({ precision: 0.667, recall: 0.727 });
    expect(h.hints.join(' ')).toMatch(/issues named 73% of the files agents changed/);
    const text = await t.run(['harvest', '--history']);
    expect(text.stdout).toContain('Prediction accuracy over 3 harvested run(s)');
  }, 120_000);

  it('never witnesses one run twice at once: two concurrent harvests commit each run exactly once', async () => {
    const t = await setUp(WAVE_ONE, { default: 'slow' });
    await t.dispatch('--worktree');
    const baseSha = (await t.git(t.root, 'rev-parse', 'HEAD')).trim();
    const [a, b] = await Promise.all([t.harvest('--revert-out-of-fence', '--commit'), t.harvest('--revert-out-of-fence', '--commit')]);
    const results = [...a.report.runs, ...b.report.runs];
    for (const n of [101, 102, 105]) {
      const mine = results.filter((r) => r.issue.number === n);
      // One harvest witnessed it; the other found it locked (or already committed).
      expect(mine.filter((r) => r.result === 'clean' && !r.already)).toHaveLength(1);
      expect((await t.git(t.root, 'rev-list', '--count', `${baseSha}..waves/issue-${n}`)).trim()).toBe('1');
    }
    const busy = results.filter((r) => r.result === 'pending');
    expect(busy.every((r) => /is being harvested by another waves harvest/.test((r as { why?: string }).why ?? ''))).toBe(true);
  }, 120_000);

  it('stops a hanging verification at its timeout, process group and all', async () => {
    const t = await setUp({ default: { edit: {} }, 102: { edit: { 'packages/web/src/index.ts': 'export {};\n' } } }, { 'issue-102': 'hang' });
    await t.dispatch('--worktree');
    const { exitCode, report } = await t.harvest('--run', (await waves(['status', '--json'], t.root)).stdout.match(/resolve-102-\w+/)![0], '--verify-timeout', '1s', '--commit');
    expect(exitCode).toBe(4);
    const w = report.runs[0]!.witness!;
    expect(w.verify.map((v) => v.status)).toEqual(['timed_out']);
    expect(w.commit).toBeNull();
    expect(w.reasons.join(' ')).toMatch(/verification timed out/);
    const pid = t.verifyTrace().at(-1)!.pid;
    const alive = (() => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    })();
    expect(alive).toBe(false);
  }, 120_000);

  it('sees and reverts what a .gitignore of the run hides: the base\'s rules list it from the start', async () => {
    const t = await setUp({
      101: { edit: { 'packages/api/src/routes/checkout.ts': 'x\n', 'packages/api/src/hidden.ts': 'sneaky\n', '.gitignore': 'packages/api/src/hidden.ts\n' } },
      102: {},
      105: {},
    });
    await t.dispatch('--worktree');
    const { report } = await t.harvest('--run', (await waves(['status', '--json'], t.root)).stdout.match(/resolve-101-\w+/)![0], '--revert-out-of-fence');
    const w = report.runs[0]!.witness!;
    expect(w.outOfFence.map((c) => c.path)).toEqual(['.gitignore', 'packages/api/src/hidden.ts']);
    expect(w.reverted).toEqual(['.gitignore', 'packages/api/src/hidden.ts']);
    expect(w.status).toBe('clean');
    expect(existsSync(path.join(t.worktree(101), 'packages/api/src/hidden.ts'))).toBe(false);
  }, 120_000);

  it('on Ctrl-C stops the running verification, keeps the record as it was and exits 130', async () => {
    const t = await setUp({ default: {}, 101: { edit: { 'packages/api/src/routes/checkout.ts': 'x\n' } } }, { 'issue-101': 'hang' });
    await t.dispatch('--worktree');
    const child = waves(['harvest'], t.root, t.env);
    const until = Date.now() + 30_000;
    while (t.verifyTrace().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    const pid = t.verifyTrace()[0]!.pid;
    // It ignores SIGTERM: waves waited for the SIGKILL that follows before it exited.
    expect(() => process.kill(pid, 0)).toThrow();
    const records = readdirSync(path.join(t.root, '.dispatch-runs')).filter((n) => /^resolve-101-.*\.json$/.test(n));
    const record = JSON.parse(readFileSync(path.join(t.root, '.dispatch-runs', records[0]!), 'utf8')) as { witness?: unknown };
    expect(record.witness).toBeUndefined();
  }, 120_000);

  it('says what needs a person: an agent that failed, changed nothing, or committed its work itself', async () => {
    const t = await setUp(
      {
        101: { exit: 2, edit: { 'packages/api/src/routes/checkout.ts': 'x\n' } },
        102: {},
        105: { edit: { 'packages/core/src/cart.ts': 'export const cart = 3;\n' }, commit: 'agent commit' },
        // An agent that removes its worktree's .git: git there would answer for the repository around it.
        103: { edit: { 'packages/payments/src/refunds.ts': 'x\n' }, delete: ['.git'] },
      },
      {},
      {},
    );
    await t.dispatch('--worktree');
    const { exitCode, report } = await t.harvest('--commit');
    expect(exitCode).toBe(4);
    expect(byIssue(report, 101).witness!.reasons.join(' ')).toMatch(/the agent failed \(exit code 2\)/);
    expect(byIssue(report, 101).witness!.commit).toBeNull();
    expect(byIssue(report, 102).witness!.reasons).toContain('the agent changed nothing');
    const w105 = byIssue(report, 105).witness!;
    expect(w105.status).toBe('clean');
    expect(w105.changed.map((c) => c.path)).toEqual(['packages/core/src/cart.ts']);
    expect(w105.commit).toBeNull();
    expect(w105.notes.join(' ')).toMatch(/nothing left to commit/);
    expect((await t.git(t.root, 'log', '--format=%s', 'waves/issue-105')).split('\n')[0]).toBe('agent commit');

    // Wave 2 (#103, #113): #103's worktree is no git work tree of its own any more.
    await t.dispatch('--worktree', '--wave', '2');
    const mainBefore = (await t.git(t.root, 'rev-parse', 'main')).trim();
    const second = await t.harvest('--commit', '--revert-out-of-fence');
    expect(second.exitCode).toBe(4);
    expect(byIssue(second.report, 103).witness!.reasons.join(' ')).toMatch(/is no longer a git work tree of its own/);
    expect((await t.git(t.root, 'rev-parse', 'main')).trim()).toBe(mainBefore);
    expect((await t.git(t.root, 'status', '--porcelain')).trim()).toBe('');
  }, 120_000);

  it('stops on a deleted test, and on files that change outside the fence while waves verifies', async () => {
    const t = await setUp(
      {
        101: { edit: { 'packages/api/src/routes/checkout.ts': 'x\n' } },
        102: { edit: { 'packages/web/src/index.ts': 'export {};\n', 'packages/web/src/app.test.ts': 'edited\n' }, delete: ['packages/web/src/view.test.ts'] },
        105: { edit: { 'packages/core/src/cart.ts': 'export const cart = 2;\n' } },
      },
      // Each verification writes in the clean tree it runs in (in waves' state), which is nobody's,
      // and — standing in for a process the agent left — in the run's worktree.
      { 'issue-101': 'write:build/own.txt,@/.waves/worktrees/issue-101/build/out.txt', 'issue-105': 'write:packages/core/src/own.ts,@/.waves/worktrees/issue-105/packages/core/src/money.ts' },
    );
    await repo!.write({ 'packages/web/src/view.test.ts': 'test\n', 'packages/web/src/app.test.ts': 'test\n' });
    await repo!.git('add', '-A');
    await repo!.git('-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', 'tests');
    await t.dispatch('--worktree');
    const { exitCode, report } = await t.harvest('--commit');
    expect(exitCode).toBe(4);
    expect(byIssue(report, 101).witness!.reasons.join(' ')).toMatch(/build\/out\.txt changed outside the fence while waves verified/);
    expect(byIssue(report, 101).witness!.reasons.join(' ')).not.toMatch(/own\.txt/);
    expect(byIssue(report, 101).witness!.commit).toBeNull();
    const w102 = byIssue(report, 102).witness!;
    expect(w102.reasons.join(' ')).toMatch(/it deleted existing test\(s\): packages\/web\/src\/view\.test\.ts/);
    expect(w102.notes.join(' ')).toMatch(/it edited existing test\(s\): packages\/web\/src\/app\.test\.ts/);
    // money.ts was written in #105's worktree, inside its fence, while it was verified: noted, and
    // not committed — the commit holds what verification checked.
    const w105 = byIssue(report, 105).witness!;
    expect(w105.reasons).toEqual([]);
    expect(w105.notes.join(' ')).toMatch(/packages\/core\/src\/money\.ts appeared inside the fence while waves verified .*not committed/);
    expect(w105.notes.join(' ')).not.toMatch(/own\.ts/);
    expect(w105.commit?.paths).toEqual(['packages/core/src/cart.ts']);
  }, 120_000);

  it('without worktrees, blames no agent for what was uncommitted before and attributes changes by fence', async () => {
    const t = await setUp({
      101: { edit: { 'packages/api/src/routes/checkout.ts': 'export const fixed = 1;\n' } },
      102: { edit: { 'packages/web/src/index.ts': 'export {};\n' } },
      105: { edit: { 'packages/core/src/cart.ts': 'export const cart = 2;\n' } },
    });
    // A person's edits, there before the dispatch.
    writeFileSync(path.join(t.root, 'README.md'), '# edited by a person\n');
    writeFileSync(path.join(t.root, 'packages/core/src/money.ts'), 'export const mine = 1;\n');
    await t.dispatch();
    const { exitCode, report } = await t.harvest('--commit', '--signoff');
    expect(exitCode, JSON.stringify(report.needsPerson)).toBe(0);
    const w101 = byIssue(report, 101).witness!;
    expect(w101.attributed).toBe(false);
    expect(w101.changed.map((c) => c.path)).toEqual(['packages/api/src/routes/checkout.ts']);
    expect(byIssue(report, 105).witness!.changed.map((c) => c.path)).toEqual(['packages/core/src/cart.ts']);
    // One commit per run on the current branch, each with its own paths; the person's edits stay uncommitted.
    const log = (await t.git(t.root, 'log', '--format=%s', '-4')).split('\n');
    expect(log.slice(0, 3).sort()).toEqual([
      'feat(web): Show the discount line in the cart view (#102)',
      'fix(api): Checkout charges twice when the payment provider times out (#101)',
      'fix(core): Cart total ignores the item currency (#105)',
    ]);
    expect((await t.git(t.root, 'status', '--porcelain')).split('\n').filter(Boolean).sort()).toEqual([' M README.md', ' M packages/core/src/money.ts']);
    // --signoff: the DCO trailer, in the record too.
    expect(byIssue(report, 101).witness!.commit!.message).toMatch(/\n\nWaves-Run: resolve-101-\w+\nSigned-off-by: Harvester <h@example\.invalid>$/);
  }, 120_000);

  it('without worktrees, never reverts a change no fence covers: it may be a person\'s', async () => {
    const t = await setUp({ 101: { edit: { 'packages/api/src/routes/checkout.ts': 'x\n', 'docs/notes.md': 'whose?\n' } }, 102: {}, 105: {} });
    await t.dispatch();
    const { exitCode, report } = await t.harvest('--revert-out-of-fence');
    expect(exitCode).toBe(4);
    const w = byIssue(report, 101).witness!;
    expect(w.outOfFence.map((c) => c.path)).toEqual(['docs/notes.md']);
    expect(w.reverted).toEqual([]);
    expect(w.notes.join(' ')).toMatch(/not reverted: without a worktree/);
    expect(readFileSync(path.join(t.root, 'docs/notes.md'), 'utf8')).toBe('whose?\n');
  }, 120_000);

  it('refuses bad flags with exit code 2 and a one-line error', async () => {
    const t = await setUp({});
    const none = await t.run(['harvest']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr.trim()).toMatch(/^waves: nothing to harvest: no run under \.dispatch-runs\//);
    const both = await t.run(['harvest', '--run', 'x', '--wave', '1']);
    expect(both.exitCode).toBe(2);
    const type = await t.run(['harvest', '--type', 'fix; rm -rf /', '--commit']);
    expect(type.exitCode).toBe(2);
    expect(type.stderr).toMatch(/--type: expected a word/);
    const unknown = await t.run(['harvest', '--run', 'resolve-1-x']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('--run resolve-1-x: no such run');
  }, 60_000);
});
