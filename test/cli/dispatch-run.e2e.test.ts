/**
 * `waves dispatch` for real, with the fake agent of test/fixtures on temporary git repositories:
 * records, logs, pid files, worktrees, leases, the concurrency cap, timeouts, Ctrl-C, a second
 * orchestrator at the same time, and `waves status`.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleRepo, FAKE_AGENT_CONFIG, waves } from '../helpers/example-repo.js';
import type { TempRepo } from '../helpers/temp-repo.js';

interface Record_ {
  id: string;
  issue: { number: number; title: string };
  argv: string[];
  cwd: string;
  pid: number | null;
  supervisorPid: number | null;
  status: string;
  exitCode: number | null;
  leaseIds: string[];
  log: string;
  pidFile: string;
  startedAt: string;
  endedAt: string | null;
  worktree: { path: string; branch: string } | null;
  reason: string | null;
}
interface TraceEvent {
  event: 'start' | 'end';
  issue: number;
  pid: number;
  cwd: string;
  at: number;
}

let repo: TempRepo | null = null;
afterEach(async () => {
  await repo?.dispose();
  repo = null;
});

/** A fresh example repository whose fake agent follows `script` (per issue number or "default"). */
async function setUp(script: Record<string, unknown>) {
  repo = await exampleRepo({ agents: FAKE_AGENT_CONFIG });
  const root = repo.root;
  const scriptFile = path.join(root, '..', `${path.basename(root)}-script.json`);
  const traceFile = path.join(root, '..', `${path.basename(root)}-trace.jsonl`);
  writeFileSync(scriptFile, JSON.stringify(script));
  const env = { FAKE_AGENT_SCRIPT: scriptFile, FAKE_AGENT_TRACE: traceFile };
  return {
    root,
    env,
    run: (args: string[], extraEnv: Record<string, string> = {}) => waves(args, root, { ...env, ...extraEnv }),
    dispatch: (...args: string[]) => waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', ...args], root, env),
    records: (): Record_[] => {
      const dir = path.join(root, '.dispatch-runs');
      if (!existsSync(dir)) return [];
      return readdirSync(dir)
        .filter((n) => n.endsWith('.json'))
        .map((n) => JSON.parse(readFileSync(path.join(dir, n), 'utf8')) as Record_)
        .sort((a, b) => a.issue.number - b.issue.number);
    },
    trace: (): TraceEvent[] => (existsSync(traceFile) ? readFileSync(traceFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as TraceEvent) : []),
    leases: async () => JSON.parse((await waves(['lease', 'list', '--json'], root)).stdout) as { lane: string; holder: string }[],
  };
}

function alive(pid: number | null): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('waves dispatch', () => {
  it('runs the first wave end to end in git worktrees under leases, and waves status shows it', async () => {
    const t = await setUp({ default: { sleepMs: 200, write: 'agent-was-here.txt' }, 102: { exit: 3 } });
    const result = await t.dispatch('--worktree');
    expect(result.exitCode, result.stderr).toBe(1); // #102 failed
    const records = t.records();
    expect(records.map((r) => [r.issue.number, r.status, r.exitCode])).toEqual([
      [101, 'succeeded', 0],
      [102, 'failed', 3],
      [105, 'succeeded', 0],
    ]);
    for (const record of records) {
      const n = record.issue.number;
      expect(record.id).toMatch(new RegExp(`^resolve-${n}-\\d{8}T\\d{9}Z$`));
      expect(path.basename(record.log)).toBe(`${record.id}.log`);
      expect(readFileSync(record.pidFile, 'utf8').trim()).toBe(String(record.pid));
      const log = readFileSync(record.log, 'utf8');
      expect(log).toContain(`agent for #${n} starting`);
      expect(log).toContain(`agent for #${n}: a warning on stderr`);
      expect(log).toContain(`agent for #${n} done`);
      expect(record.argv.slice(2, 4)).toEqual(['--issue', String(n)]);
      expect(record.worktree?.branch).toBe(`waves/issue-${n}`);
      expect(record.cwd).toBe(path.join(t.root, '.waves', 'worktrees', `issue-${n}`));
      expect(record.leaseIds.length).toBeGreaterThan(0);
      expect(Date.parse(record.endedAt!)).toBeGreaterThanOrEqual(Date.parse(record.startedAt));
      // The agent worked in its own worktree, on its branch, not in the checkout.
      expect(readFileSync(path.join(record.cwd, 'agent-was-here.txt'), 'utf8')).toBe(`work for #${n}\n`);
    }
    expect(t.trace().filter((e) => e.event === 'start').map((e) => e.cwd).sort()).toEqual(records.map((r) => r.cwd));
    expect((await repo!.git('worktree', 'list')).stdout).toMatch(/issue-101 +\w+ \[waves\/issue-101\]/);
    expect(existsSync(path.join(t.root, 'agent-was-here.txt'))).toBe(false);
    // Every lease ended with its run; logs and records are not something to commit.
    expect(await t.leases()).toEqual([]);
    expect((await repo!.git('status', '--porcelain')).stdout).toBe('');

    const status = await t.run(['status', '--json']);
    expect(status.exitCode).toBe(0);
    const rows = JSON.parse(status.stdout) as { issue: { number: number }; status: string; log: string; duration: string }[];
    expect(rows.map((r) => [r.issue.number, r.status])).toEqual([
      [101, 'succeeded'],
      [102, 'failed'],
      [105, 'succeeded'],
    ]);
    const table = await t.run(['status']);
    expect(table.stdout).toMatch(/#102 Show the discount line.*failed \(exit 3\)/);
    expect(table.stdout).toContain(`.dispatch-runs/${records[0]!.id}.log`);

    // A second run of the same wave continues in the worktrees the first one left — once the runs
    // whose agents wrote in them are harvested (red team J1: an agent could have planted files there).
    const early = await t.dispatch('--worktree');
    expect(early.exitCode).toBe(2);
    expect(early.stderr).toMatch(/^waves: dispatch refused: #101: its worktree \.waves\/worktrees\/issue-101 holds uncommitted changes, and run\(s\) #101, #102, #105 not yet harvested ran meanwhile/);
    expect((await t.run(['harvest'])).exitCode).not.toBe(2);
    const again = await t.dispatch('--worktree');
    expect(again.stderr).toContain('#101 continues in its worktree .waves/worktrees/issue-101 (waves/issue-101)');
    expect(t.records()).toHaveLength(6);
  }, 90_000);

  it('never runs more agents at once than --concurrency', async () => {
    const t = await setUp({ default: { sleepMs: 1200 } });
    const result = await t.dispatch('--concurrency', '2');
    expect(result.exitCode, result.stderr).toBe(0);
    const events = t.trace().sort((a, b) => a.at - b.at || (a.event === 'end' ? -1 : 1));
    expect(events.filter((e) => e.event === 'start')).toHaveLength(3);
    let running = 0;
    let most = 0;
    for (const e of events) {
      running += e.event === 'start' ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(most).toBe(2);
  }, 60_000);

  it('stops an agent past --timeout, its whole process group, and records it timed_out', async () => {
    const t = await setUp({ default: { sleepMs: 100 }, 105: { hang: true } });
    const result = await t.dispatch('--timeout', '2s');
    expect(result.exitCode).toBe(1);
    const hung = t.records().find((r) => r.issue.number === 105)!;
    expect(hung.status).toBe('timed_out');
    expect(hung.reason).toMatch(/no end after 2 s/);
    expect(alive(hung.pid)).toBe(false);
    expect(t.records().filter((r) => r.status === 'succeeded')).toHaveLength(2);
    expect(result.stderr).toContain('#105 timed_out');
    expect(await t.leases()).toEqual([]);
  }, 60_000);

  it('leaves nothing running and nothing leased on Ctrl-C, while a second dispatch takes none of its issues', async () => {
    const t = await setUp({ default: { hang: true } });
    const planFlags = ['--from-issues', 'backlog.json', '--top', '20', '--wave-size', '2'];
    const first = waves(['dispatch', ...planFlags, '--agent', 'fake', '--worktree'], t.root, t.env);
    await waitFor('two running agents', () => t.records().filter((r) => r.status === 'running').length === 2);
    const firstIssues = t.records().map((r) => r.issue.number);
    expect(firstIssues).toEqual([101, 102]);
    const held = (await t.leases()).map((l) => l.lane);
    expect(held).toEqual(expect.arrayContaining(['packages/api/src/routes/checkout.ts', 'packages/web']));

    // A second orchestrator on the same backlog and flags: its plan holds the first one's issues
    // and it runs others.
    const plan = JSON.parse((await t.run(['plan', ...planFlags, '--json'])).stdout) as { held: { number: number }[] };
    expect(plan.held.map((h) => h.number)).toEqual(expect.arrayContaining(firstIssues));
    const second = await waves(['dispatch', ...planFlags, '--agent', 'fake'], t.root, { ...t.env, FAKE_AGENT_SCRIPT: '' });
    expect(second.exitCode, second.stderr).toBe(0);
    const secondIssues = t.records().filter((r) => r.status === 'succeeded').map((r) => r.issue.number);
    expect(secondIssues.length).toBeGreaterThan(0);
    expect(secondIssues.filter((n) => firstIssues.includes(n))).toEqual([]);
    expect(t.records()).toHaveLength(firstIssues.length + secondIssues.length);

    const running = t.records().filter((r) => firstIssues.includes(r.issue.number));
    first.kill('SIGINT');
    const stopped = await first;
    expect(stopped.exitCode).toBe(130);
    expect(stopped.stderr).toContain('stopping #101, #102;');
    for (const record of t.records().filter((r) => firstIssues.includes(r.issue.number))) {
      expect(record.status).toBe('cancelled');
      expect(record.endedAt).not.toBeNull();
    }
    for (const record of running) {
      expect(alive(record.pid)).toBe(false);
      expect(alive(record.supervisorPid)).toBe(false);
    }
    expect(await t.leases()).toEqual([]);
  }, 90_000);

  it('returns at once with --detach; waves status follows the runs, shows a crashed one stale and --reap settles it', async () => {
    const t = await setUp({ default: { sleepMs: 1500 }, 101: { hang: true } });
    const result = await t.dispatch('--detach');
    expect(result.exitCode, result.stderr).toBe(0);
    await waitFor('two finished runs', () => t.records().filter((r) => r.status === 'succeeded').length === 2);
    const hung = t.records().find((r) => r.issue.number === 101)!;
    expect(hung.status).toBe('running');
    // The machine "crashes" for this run: its supervisor and agent die without a word.
    process.kill(hung.supervisorPid!, 'SIGKILL');
    process.kill(-hung.pid!, 'SIGKILL');
    await waitFor('the processes to be gone', () => !alive(hung.pid) && !alive(hung.supervisorPid));
    const stale = JSON.parse((await t.run(['status', '--json'])).stdout) as { issue: { number: number }; status: string }[];
    expect(stale.map((r) => [r.issue.number, r.status])).toEqual([
      [101, 'stale'],
      [102, 'succeeded'],
      [105, 'succeeded'],
    ]);
    expect((await t.leases()).length).toBeGreaterThan(0); // still leased: nobody settled it
    const reaped = await t.run(['status', '--reap']);
    expect(reaped.stderr).toMatch(new RegExp(`reaped ${hung.id} \\(#101\\); its [1-9]\\d* lease\\(s\\) are released`));
    expect(t.records().find((r) => r.issue.number === 101)!.status).toBe('failed');
    expect(await t.leases()).toEqual([]);
  }, 60_000);
});
