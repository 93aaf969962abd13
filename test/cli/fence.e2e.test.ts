/**
 * Live fences in real dispatches of the example's first wave (#101 checkout.ts + stripe.ts, #102
 * discounts.ts + packages/web/, #105 cart.ts + money.ts): a shell write caught by the supervisor's
 * watcher and counted by harvest, two runs racing for one file, a refusal with
 * `fence.onRefusal: stop`, and fake agents speaking Claude Code's hook protocol and opencode's
 * plugin interface.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fenceSocketPath } from '@waves/dispatch';
import { lanesOverlap, LeaseEventSchema } from '@waves/planner';
import { FAKE_AGENT_CONFIG, ROOT, TEST_STATE_DIR, waves } from '../helpers/example-repo.js';
import { useRunRepo } from '../helpers/run-repo.js';

const HOOKED = path.join(ROOT, 'test/fixtures/agents/hooked-agent.mjs');
chmodSync(HOOKED, 0o755);

const ctx = useRunRepo({
  config: {
    agents: {
      ...FAKE_AGENT_CONFIG,
      'fake-claude': { command: ['{side}/claude', '--issue', '{number}', '{prompt}'] },
      'fake-opencode': { command: ['{side}/opencode', '--issue', '{number}', '{prompt}'] },
    },
    fence: { live: true },
  },
  clean: ['.waves/worktrees', 'docs/notes.md', 'scripts/extra.ts', '.claude', '.npmrc'],
});

// Each test starts from no worktree and no run branch.
afterEach(async () => {
  rmSync(path.join(ctx.root, '.waves/worktrees'), { recursive: true, force: true });
  await ctx.repo.git('worktree', 'prune');
  const branches = (await ctx.repo.git('branch', '--list', 'waves/*', '--format=%(refname:short)')).stdout.split('\n').filter(Boolean);
  if (branches.length > 0) await ctx.repo.git('branch', '-D', ...branches);
  rmSync(path.join(ctx.side, 'hooked.jsonl'), { force: true });
});

interface FenceLog {
  installed: string[];
  extensions: { path: string; by: string; leaseId: string | null }[];
  refusals: { path: string; by: string; reason: string; holder: string | null; via: string | null; message: string }[];
}
interface RunRecordView {
  id: string;
  issue: { number: number };
  status: string;
  reason: string | null;
  fence?: FenceLog;
  fenceRules?: { holder: string };
}

const records = (): RunRecordView[] =>
  readdirSync(path.join(ctx.root, '.dispatch-runs'))
    .filter((n) => /^resolve-\d+-\w+\.json$/.test(n))
    .map((n) => JSON.parse(readFileSync(path.join(ctx.root, '.dispatch-runs', n), 'utf8')) as RunRecordView);
const recordOf = (n: number) => records().find((r) => r.issue.number === n)!;

function agentsScript(script: object): Record<string, string> {
  const file = path.join(ctx.side, 'agents.json');
  writeFileSync(file, JSON.stringify(script));
  return { FAKE_AGENT_SCRIPT: file, FAKE_HOOKED_SCRIPT: file, FAKE_HOOKED_TRACE: path.join(ctx.side, 'hooked.jsonl') };
}

/** The agent config needs the side folder's path: written into the config the test passes. */
function withSide(): string {
  const config = JSON.parse(readFileSync(path.join(ctx.root, 'waves.config.json'), 'utf8'));
  for (const name of ['fake-claude', 'fake-opencode']) config.agents[name].command[0] = config.agents[name].command[0].replace('{side}', ctx.side);
  const file = path.join(ctx.side, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  for (const name of ['claude', 'opencode']) if (!existsSync(path.join(ctx.side, name))) symlinkSync(HOOKED, path.join(ctx.side, name));
  return file;
}

const dispatch = (env: Record<string, string>, ...args: string[]) => waves(['dispatch', '--from-issues', 'backlog.json', '--config', withSide(), ...args], ctx.root, env);

/** #101 dispatched detached with an agent that sleeps, once it runs: its record and its fence socket (there). */
async function detachedRun() {
  const env = agentsScript({ 101: { sleepMs: 30_000 } });
  const started = await dispatch(env, '--agent', 'fake', '--top', '1', '--detach');
  expect(started.exitCode, started.stderr).toBe(0);
  const until = Date.now() + 20_000;
  while (recordOf(101)?.status !== 'running' && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  const run = recordOf(101) as RunRecordView & { supervisorPid: number; pid: number };
  // Where the run's socket is: under the state folder, or in /tmp when that path is too long for a socket.
  const socket = fenceSocketPath(run.id, { WAVES_STATE_DIR: TEST_STATE_DIR });
  expect(existsSync(socket)).toBe(true);
  return { env, run, socket };
}

describe('live fences', () => {
  it('catches a shell write outside the fence, leases it in the run\'s name, and harvest counts it in the fence (and as a miss of the plan)', async () => {
    // It writes and ends at once: its grant is still on the way when it exits.
    const env = agentsScript({ 101: { edit: { 'docs/notes.md': 'notes\n' }, sleepMs: 0 } });
    const result = await dispatch(env, '--agent', 'fake', '--worktree');
    expect(result.exitCode, result.stderr).toBe(0);
    const run = recordOf(101) as RunRecordView & { leaseEnd?: { held: boolean } };
    expect(run.fence?.extensions).toMatchObject([{ path: 'docs/notes.md', by: 'watcher', leaseId: expect.any(String) }]);
    expect(run.fence?.refusals).toEqual([]);
    // Its fencing check knew of the grant: the extension's lease was confirmed held.
    expect(run.leaseEnd).toMatchObject({ held: true });
    const harvest = await waves(['harvest', '--json'], ctx.root, env);
    const witnessed = (JSON.parse(harvest.stdout) as { runs: { issue: { number: number }; witness: { status: string; reasons: string[]; inFence: string[]; outOfFence: unknown[]; extensions?: string[]; accuracy: { missed: string[] } } }[] }).runs.find((r) => r.issue.number === 101)!.witness;
    expect(witnessed.reasons.join(' ')).not.toMatch(/never confirmed held/);
    expect(witnessed.extensions).toEqual(['docs/notes.md']);
    expect(witnessed.inFence).toContain('docs/notes.md');
    expect(witnessed.outOfFence).toEqual([]);
    expect(witnessed.accuracy.missed).toContain('docs/notes.md');
    const human = await waves(['harvest'], ctx.root, env);
    expect(human.stdout).toMatch(/#101 widened its fence while it ran .*: docs\/notes\.md/);
    // The extension's lease ended with the run.
    const list = await waves(['lease', 'list', '--json'], ctx.root, env);
    expect(JSON.parse(list.stdout).leases ?? JSON.parse(list.stdout)).toEqual([]);
  });

  it('removes the fence socket of a reaped run: supervisor and agent killed (-9), waves status --reap', async () => {
    const { env, run, socket } = await detachedRun();
    process.kill(run.supervisorPid, 'SIGKILL');
    process.kill(-run.pid, 'SIGKILL');
    const gone = Date.now() + 10_000;
    while (Date.now() < gone && (() => { try { process.kill(run.pid, 0); return true; } catch { return false; } })()) await new Promise((r) => setTimeout(r, 50));
    const reaped = await waves(['status', '--reap'], ctx.root, env);
    expect(reaped.stderr).toMatch(/reaped resolve-101-/);
    expect(existsSync(socket)).toBe(false);
  }, 60_000);

  it('removes the fence socket of a run whose supervisor was killed (-9) once waves stop settles it', async () => {
    const { env, run, socket } = await detachedRun();
    process.kill(run.supervisorPid, 'SIGKILL');
    const stopped = await waves(['stop', '--all'], ctx.root, env);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(recordOf(101).status).toBe('cancelled');
    expect(existsSync(socket)).toBe(false);
  }, 60_000);

  it('grants a file two runs write outside their fences to exactly one of them; the journal replayed shows no overlap', async () => {
    const env = agentsScript({ 101: { edit: { 'scripts/extra.ts': 'a\n' }, sleepMs: 5_000 }, 105: { edit: { 'scripts/extra.ts': 'b\n' }, sleepMs: 5_000 } });
    const result = await dispatch(env, '--agent', 'fake', '--worktree');
    expect(result.exitCode, result.stderr).toBe(0);
    const runs = [recordOf(101), recordOf(105)];
    expect(runs.every(Boolean), `${result.stderr}\n${JSON.stringify(records().map((r) => [r.issue.number, r.status, r.reason]))}`).toBe(true);
    const granted = runs.filter((r) => r.fence!.extensions.some((e) => e.path === 'scripts/extra.ts'));
    const refused = runs.filter((r) => r.fence!.refusals.some((e) => e.path === 'scripts/extra.ts'));
    expect(granted).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.fence!.refusals[0]).toMatchObject({ reason: 'overlap', by: 'watcher', holder: granted[0]!.fenceRules!.holder });
    const live = new Map<string, { lane: string; holder: string }>();
    // Past the journal's header line (its generation).
    for (const line of readFileSync(path.join(ctx.root, '.waves/leases.jsonl'), 'utf8').trim().split('\n').filter((l) => JSON.parse(l).op !== 'journal')) {
      const event = LeaseEventSchema.parse(JSON.parse(line));
      if (event.op === 'acquire') {
        for (const other of live.values()) if (other.holder !== event.holder) expect(lanesOverlap(other.lane, event.lane), `${event.holder} took ${event.lane} while ${other.holder} held ${other.lane}`).toBe(false);
        live.set(event.id, { lane: event.lane, holder: event.holder });
      } else if (event.op === 'release') live.delete(event.id);
    }
    expect(live.size).toBe(0);
  });

  it('refuses a run the file it writes outside its fence when that file imports a file another run leases, with the import as evidence', async () => {
    // #101 leases stripe.ts (its fence); #105 writes refunds.ts, which imports stripe.ts.
    const env = agentsScript({ 101: { sleepMs: 6_000 }, 105: { edit: { 'packages/payments/src/refunds.ts': "import { charge } from './stripe.js';\nexport const refund = charge;\n" } } });
    const result = await dispatch(env, '--agent', 'fake', '--worktree');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(recordOf(105).fence?.refusals).toMatchObject([
      { path: 'packages/payments/src/refunds.ts', reason: 'import', by: 'watcher', holder: recordOf(101).fenceRules!.holder, via: 'packages/payments/src/refunds.ts imports packages/payments/src/stripe.ts' },
    ]);
    expect(recordOf(105).fence?.extensions).toEqual([]);
  });

  it('stops a run whose write is refused, with fence.onRefusal: stop, and records it fenced with who holds the file', async () => {
    const config = withSide();
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), fence: { live: true, onRefusal: 'stop' } }));
    const env = agentsScript({ 101: { edit: { 'docs/notes.md': 'x\n' }, sleepMs: 60_000 } });
    const held = await waves(['lease', 'acquire', 'docs/notes.md', '--holder', 'alice@elsewhere', '--ttl', '10m'], ctx.root, env);
    expect(held.exitCode, held.stderr).toBe(0);
    const result = await waves(['dispatch', '--from-issues', 'backlog.json', '--config', config, '--agent', 'fake', '--worktree', '--timeout', '2m'], ctx.root, env);
    expect(result.exitCode).toBe(1);
    const run = recordOf(101);
    expect(run.status).toBe('fenced');
    expect(run.reason).toMatch(/^fenced: docs\/notes\.md was refused \(alice@elsewhere holds docs\/notes\.md until/);
    expect(run.fence?.refusals).toMatchObject([{ path: 'docs/notes.md', reason: 'overlap', by: 'watcher', holder: 'alice@elsewhere' }]);
    expect(readFileSync(path.join(ctx.root, '.dispatch-runs', `${run.id}.log`), 'utf8')).toMatch(/\[waves\] fence: refused docs\/notes\.md \(watcher\)/);
    expect(recordOf(102).status).toBe('succeeded');
  });

  it('catches an agent deleting its own hook file, with the watcher (refused: own)', async () => {
    const env = agentsScript({ 101: { writes: ['packages/api/src/routes/checkout.ts'], tamper: true } });
    const result = await dispatch(env, '--agent', 'fake-claude', '--worktree');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(recordOf(101).fence?.refusals).toMatchObject([{ path: '.claude/settings.local.json', reason: 'own', by: 'watcher' }]);
  });

  it('refuses a run a control file it writes outside its fence (.npmrc), and harvest needs a person for it (F4)', async () => {
    const env = agentsScript({ 101: { edit: { '.npmrc': 'node-options=--require ./evil.cjs\n', 'docs/notes.md': 'notes\n' } } });
    const result = await dispatch(env, '--agent', 'fake', '--worktree');
    expect(result.exitCode, result.stderr).toBe(0);
    const run = recordOf(101);
    expect(run.fence?.refusals).toMatchObject([{ path: '.npmrc', reason: 'control', by: 'watcher' }]);
    expect(run.fence?.extensions.map((e) => e.path)).toEqual(['docs/notes.md']);
    const harvest = await waves(['harvest', '--json'], ctx.root, env);
    const witness = (JSON.parse(harvest.stdout) as { runs: { issue: { number: number }; witness: { status: string; reasons: string[]; outOfFence: { path: string }[]; extensions?: string[] } }[] }).runs.find((r) => r.issue.number === 101)!.witness;
    expect(witness.status).toBe('needs_person');
    expect(witness.outOfFence.map((c) => c.path)).toEqual(['.npmrc']);
    expect(witness.extensions).toEqual(['docs/notes.md']);
  });

  it('needs a person for a control file changed inside a fence the plan inferred (a package fenced as a guess), and never commits it', async () => {
    // Named nowhere: inferred in plan mode, fenced to the whole payments package (an area fence).
    const issues = path.join(ctx.side, 'inferred.json');
    writeFileSync(issues, JSON.stringify([{ number: 7, title: 'refunds are rounded wrong in the stripe refunds', body: '', labels: [] }]));
    const env = agentsScript({ 7: { edit: { 'packages/payments/package.json': '{ "name": "payments", "scripts": { "postinstall": "node -e 1" } }\n', 'packages/payments/src/refunds.ts': 'export const refunded = 1;\n' } } });
    const plan = JSON.parse((await waves(['plan', '--from-issues', issues, '--inference', 'plan', '--inference-threshold', '0.6', '--json'], ctx.root)).stdout) as { waves: { issues: { number: number; paths: string[]; inferred?: boolean }[] }[] };
    expect(plan.waves[0]!.issues).toEqual([expect.objectContaining({ number: 7, inferred: true, paths: ['packages/payments/'] })]);
    const result = await waves(['dispatch', '--from-issues', issues, '--inference', 'plan', '--inference-threshold', '0.6', '--config', withSide(), '--agent', 'fake', '--worktree'], ctx.root, env);
    expect(result.exitCode, result.stderr).toBe(0);
    const harvest = await waves(['harvest', '--json', '--commit'], ctx.root, env);
    const witness = (JSON.parse(harvest.stdout) as { runs: { issue: { number: number }; witness: { status: string; reasons: string[]; commit: unknown } }[] }).runs.find((r) => r.issue.number === 7)!.witness;
    expect(witness.status).toBe('needs_person');
    expect(witness.reasons.join('\n')).toMatch(/control file\(s\) its plan did not name .*: packages\/payments\/package\.json/);
    expect(witness.commit).toBeNull();
  });

  it('lets several Claude runs of one shared work tree use one hook, each judged by its own fence (F11)', async () => {
    const env = agentsScript({
      101: { holdMs: 4_000 },
      102: { waitMs: 1_500, writes: ['packages/payments/src/stripe.ts'] },
      105: { waitMs: 1_500, writes: ['packages/core/src/money.ts'] },
    });
    const result = await dispatch(env, '--agent', 'fake-claude');
    expect(result.exitCode, result.stderr).toBe(0);
    const trace = readFileSync(path.join(ctx.side, 'hooked.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { issue: number; path: string; allowed: boolean; reason: string | null });
    expect(trace.map((t) => [t.issue, t.path, t.allowed]).sort()).toEqual([
      [102, 'packages/payments/src/stripe.ts', false],
      [105, 'packages/core/src/money.ts', true],
    ]);
    expect(trace.find((t) => t.issue === 102)!.reason).toMatch(/resolve-101-/);
    expect(recordOf(101).status).toBe('succeeded');
    expect(recordOf(101).fence?.refusals).toEqual([]);
    for (const n of [101, 102, 105]) expect(recordOf(n).fence?.installed).toEqual(['.claude/settings.local.json']);
    // The last run to end removed it.
    expect(existsSync(path.join(ctx.root, '.claude'))).toBe(false);
    await ctx.repo.git('checkout', '--', '.');
  });

  for (const agent of ['claude', 'opencode'] as const) {
    it(`gives a ${agent} agent its hook in its worktree: allowed inside, granted outside when free, denied with the reason when not; removed at the end`, async () => {
      const env = agentsScript({ 101: { writes: ['packages/api/src/routes/checkout.ts', 'docs/notes.md', 'package.json'] } });
      const result = await dispatch(env, '--agent', `fake-${agent}`, '--worktree');
      expect(result.exitCode, result.stderr).toBe(0);
      const trace = readFileSync(path.join(ctx.side, 'hooked.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { issue: number; path: string; allowed: boolean; reason: string | null });
      expect(trace.filter((t) => t.issue === 101).map((t) => [t.path, t.allowed])).toEqual([
        ['packages/api/src/routes/checkout.ts', true],
        ['docs/notes.md', true],
        ['package.json', false],
      ]);
      expect(trace.find((t) => t.path === 'package.json')!.reason).toMatch(/refused .*package\.json: a root file .*\nThis file is outside your fence/);
      const run = recordOf(101);
      const installed = agent === 'claude' ? '.claude/settings.local.json' : '.opencode/plugins/waves-fence.js';
      expect(run.fence?.installed).toEqual([installed]);
      expect(run.fence?.extensions).toMatchObject([{ path: 'docs/notes.md', by: agent }]);
      expect(run.fence?.refusals).toMatchObject([{ path: 'package.json', reason: 'root', by: agent }]);
      const worktree = path.join(ctx.root, '.waves/worktrees/issue-101');
      expect(existsSync(path.join(worktree, installed))).toBe(false);
      expect(existsSync(path.join(worktree, installed.split('/')[0]!))).toBe(false);
      expect(readFileSync(path.join(worktree, 'docs/notes.md'), 'utf8')).toContain(`${agent} fake`);
    });
  }
});
