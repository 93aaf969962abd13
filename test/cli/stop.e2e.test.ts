/**
 * `waves stop`: the runs nobody supervises any more (dispatch and supervisors killed with -9) are
 * stopped — their process groups and marked processes gone, records cancelled, leases released —
 * and a pid an agent forged into its record is never signalled.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cloneTag, sealFileOf } from '@waves/dispatch';
import { FAKE_AGENT_CONFIG, waves } from '../helpers/example-repo.js';
import { alive, waitFor } from '../helpers/processes.js';
import { useRunRepo } from '../helpers/run-repo.js';

interface Record_ {
  id: string;
  issue: { number: number };
  wave: number;
  pid: number | null;
  supervisorPid: number | null;
  status: string;
  reason: string | null;
}

const shared = useRunRepo({ config: { agents: FAKE_AGENT_CONFIG } });
const { started, dispatches } = shared;
let count = 0;

function setUp(script: Record<string, unknown>) {
  const root = shared.root;
  count += 1;
  const scriptFile = path.join(shared.side, `stop-script-${count}.json`);
  const traceFile = path.join(shared.side, `stop-trace-${count}.jsonl`);
  writeFileSync(scriptFile, JSON.stringify(script));
  const env = { FAKE_AGENT_SCRIPT: scriptFile, FAKE_AGENT_TRACE: traceFile, WAVES_KILL_GRACE_MS: '300' };
  const dir = path.join(root, '.dispatch-runs');
  const t = {
    root,
    run: (args: string[], extraEnv: Record<string, string> = {}) => {
      const run = waves(args, root, { ...env, ...extraEnv });
      dispatches.push(run);
      return run;
    },
    /** Starts the first wave detached, then kills every supervisor: nobody watches the agents. */
    orphans: async (waveSize = 2) => {
      const result = await waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--wave-size', String(waveSize), '--detach'], root, env);
      expect(result.exitCode, result.stderr).toBe(0);
      await waitFor('running agents with their grandchildren', () => t.records().every((r) => r.status === 'running') && t.grandchildren().length === waveSize);
      for (const record of t.records()) process.kill(record.supervisorPid!, 'SIGKILL');
      await waitFor('the supervisors to be gone', () => t.records().every((r) => !alive(r.supervisorPid)));
      return t.records();
    },
    file: (id: string) => path.join(dir, `${id}.json`),
    /** The sealed copy of a run's record (what waves acts on). */
    sealed: async (id: string) => JSON.parse(readFileSync(await sealFileOf(path.join(dir, `${id}.json`)), 'utf8')) as Record_ & { tracked?: { pids: { pid: number }[] } },
    records: (): Record_[] => {
      if (!existsSync(dir)) return [];
      const records = readdirSync(dir)
        .filter((n) => /^resolve-.*\.json$/.test(n))
        .map((n) => JSON.parse(readFileSync(path.join(dir, n), 'utf8')) as Record_)
        .sort((a, b) => a.issue.number - b.issue.number);
      for (const r of records) for (const pid of [r.pid, r.supervisorPid]) if (pid) started.add(pid);
      return records;
    },
    grandchildren: (): number[] => {
      const pids = existsSync(traceFile)
        ? readFileSync(traceFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; pid: number }).filter((e) => e.event === 'grandchild').map((e) => e.pid)
        : [];
      for (const pid of pids) started.add(pid);
      return pids;
    },
    leases: async () => JSON.parse((await waves(['lease', 'list', '--json'], root)).stdout) as { lane: string; holder: string }[],
  };
  return t;
}

describe('waves stop', () => {
  it('stops every run whose dispatch and supervisors were killed with -9: processes gone, records cancelled, leases released', async () => {
    const t = setUp({ default: { grandchild: true } });
    const orphans = await t.orphans();
    expect(orphans.map((r) => r.issue.number)).toEqual([101, 102]);
    expect(orphans.every((r) => alive(r.pid))).toBe(true);
    const status = JSON.parse((await t.run(['status', '--json'])).stdout) as { status: string }[];
    expect(status.map((r) => r.status)).toEqual(['running', 'running']);

    const stopped = await t.run(['stop', '--all']);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(stopped.stdout).toMatch(/stopped resolve-101-\S+ \(#101\)/);
    for (const record of t.records()) {
      expect(record.status).toBe('cancelled');
      expect(record.reason).toMatch(/waves stop/);
    }
    for (const pid of [...orphans.map((r) => r.pid), ...t.grandchildren()]) expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(await t.leases()).toEqual([]);

    const again = await t.run(['stop', '--all', '--json']);
    expect(again.exitCode).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([]);
  }, 60_000);

  it('stops one run (--run) through its live supervisor, and leaves the others running', async () => {
    const t = setUp({ default: { grandchild: true } });
    // Detached runs with their supervisors alive.
    const dispatched = await t.run(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--wave-size', '2', '--detach']);
    expect(dispatched.exitCode, dispatched.stderr).toBe(0);
    await waitFor('running agents', () => t.records().length === 2 && t.records().every((r) => r.status === 'running') && t.grandchildren().length === 2);
    const [first, second] = t.records();
    const stopped = await t.run(['stop', '--run', first!.id, '--json']);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toEqual([expect.objectContaining({ id: first!.id, status: 'cancelled' })]);
    const [after101, after102] = t.records();
    expect(after101!.status).toBe('cancelled');
    expect(alive(first!.pid)).toBe(false);
    expect(alive(first!.supervisorPid)).toBe(false);
    expect(after102!.status).toBe('running');
    expect(alive(second!.pid)).toBe(true);
    expect((await t.leases()).length).toBeGreaterThan(0);
    expect((await t.run(['stop', '--wave', '1'])).exitCode).toBe(0);
    expect(t.records().map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
    expect(await t.leases()).toEqual([]);
  }, 60_000);

  it('acts on the sealed record: a pid an agent forged into the repository\'s copy is never read', async () => {
    const t = setUp({ default: { grandchild: true } });
    const [orphan] = await t.orphans(1);
    const bystander = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { detached: true, stdio: 'ignore' });
    started.add(bystander.pid!);
    const record = JSON.parse(readFileSync(t.file(orphan!.id), 'utf8')) as Record_;
    writeFileSync(t.file(orphan!.id), JSON.stringify({ ...record, pid: bystander.pid }, null, 2));

    const stopped = await t.run(['stop', '--run', orphan!.id]);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(stopped.stderr).not.toMatch(new RegExp(`${bystander.pid}`));
    expect(alive(bystander.pid)).toBe(true);
    for (const pid of [orphan!.pid, ...t.grandchildren()]) expect(alive(pid), `pid ${pid}`).toBe(false);
    // The copy is written back from the seal: the forged pid is gone from it too.
    expect(t.records()[0]).toMatchObject({ status: 'cancelled', pid: orphan!.pid });
    expect(await t.leases()).toEqual([]);
  }, 60_000);

  // The marker is read from /proc: Linux only.
  it.runIf(process.platform === 'linux')('without a seal, never signals a process an agent forged into its record, and still stops the run by its marker', async () => {
    const t = setUp({ default: { grandchild: true } });
    const [orphan] = await t.orphans(1);
    // A process of the user's, in a group of its own: what a forged record points at.
    const bystander = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { detached: true, stdio: 'ignore' });
    started.add(bystander.pid!);
    const record = JSON.parse(readFileSync(t.file(orphan!.id), 'utf8')) as Record_;
    // No seal to fall back on (dispatched by an older waves, or the seal deleted): the copy is all there is.
    rmSync(await sealFileOf(t.file(orphan!.id)));
    writeFileSync(t.file(orphan!.id), JSON.stringify({ ...record, pid: bystander.pid }, null, 2));

    const stopped = await t.run(['stop', '--run', orphan!.id]);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(stopped.stderr).toMatch(new RegExp(`refused to signal process group ${bystander.pid}: .*WAVES_RUN`));
    expect(alive(bystander.pid)).toBe(true);
    // The real agent and its grandchild carried the run's marker: found and stopped anyway.
    for (const pid of [orphan!.pid, ...t.grandchildren()]) expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(t.records()[0]!.status).toBe('cancelled');
    expect(stopped.stdout).toMatch(new RegExp(`stopped ${orphan!.id} \\(#\\d+\\): cancelled .*; its [1-9]\\d* lease\\(s\\) are released`));
    expect(await t.leases()).toEqual([]);

    // pid 1 and waves' own process group are never signalled either; and a record that names a
    // run holding nothing (its leases went with the stop above) is not said to release any.
    for (const forged of [1, process.pid]) {
      writeFileSync(t.file(orphan!.id), JSON.stringify({ ...record, pid: forged, status: 'running' }, null, 2));
      const refused = await t.run(['stop', '--all']);
      expect(refused.exitCode).toBe(0);
      expect(refused.stderr, `${forged}: ${refused.stdout}`).toMatch(/refused to signal process group/);
      expect(refused.stdout).toMatch(/; it held no lease in its name \(nothing released\)$/);
      expect(refused.stdout).not.toMatch(/are released/);
    }
  }, 60_000);

  // The tracker reads /proc: Linux only.
  it.runIf(process.platform === 'linux')('stops a daemon that cleared its environment and left the session, from what the supervisor\'s tracker recorded', async () => {
    const t = setUp({ default: { escape: 'quiet', hang: true } });
    const dispatched = await t.run(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--wave-size', '1', '--detach']);
    expect(dispatched.exitCode, dispatched.stderr).toBe(0);
    await waitFor('the daemon', () => t.grandchildren().length === 1);
    const [daemon] = t.grandchildren();
    // The tracker's list reaches the sealed record (throttled); then nobody supervises the run.
    await waitFor('the daemon in the record', async () => ((await t.sealed(t.records()[0]!.id)).tracked?.pids ?? []).some((p) => p.pid === daemon));
    const [running] = t.records();
    process.kill(running!.supervisorPid!, 'SIGKILL');
    await waitFor('the supervisor to be gone', () => !alive(running!.supervisorPid));
    expect(alive(daemon)).toBe(true);

    const stopped = await t.run(['stop', '--all']);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(t.records()[0]!.status).toBe('cancelled');
    for (const pid of [running!.pid, daemon]) expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(await t.leases()).toEqual([]);
  }, 60_000);

  it('ends a detached dispatch only once every supervisor has written itself into its record: a reap right after reaps nothing (red team 4)', async () => {
    const t = setUp({ default: { hang: true } });
    const dispatched = await t.run(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--wave-size', '2', '--detach'], { WAVES_TEST_SUPERVISOR_BOOT_DELAY_MS: '1500' });
    expect(dispatched.exitCode, dispatched.stderr).toBe(0);
    expect(t.records().every((r) => r.supervisorPid !== null && alive(r.supervisorPid)), JSON.stringify(t.records().map((r) => [r.id, r.status, r.supervisorPid]))).toBe(true);
    const reaped = await t.run(['status', '--reap']);
    expect(reaped.stderr).not.toMatch(/reaped/);
    expect(t.records().every((r) => r.status === 'starting' || r.status === 'running')).toBe(true);
    expect((await t.leases()).length).toBeGreaterThan(0);
    expect((await t.run(['stop', '--all'])).exitCode).toBe(0);
  }, 60_000);

  it('finds the leases of a dispatch killed (-9) right after it took them: the run shows stale, and status --reap releases them', async () => {
    const t = setUp({});
    const pause = path.join(shared.side, `pause-${count}`);
    const dispatch = t.run(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--wave-size', '1'], { WAVES_TEST_PAUSE_AFTER_LEASES: pause });
    await waitFor('the leases to be taken', () => existsSync(pause));
    expect((await t.leases()).length).toBeGreaterThan(0);
    dispatch.kill('SIGKILL');
    await dispatch.catch(() => undefined);
    const status = await t.run(['status', '--json']);
    expect(JSON.parse(status.stdout)).toEqual([expect.objectContaining({ issue: expect.objectContaining({ number: 101 }), status: 'stale', recorded: 'starting' })]);
    const reaped = await t.run(['status', '--reap']);
    expect(reaped.exitCode, reaped.stderr).toBe(0);
    expect(reaped.stderr).toMatch(/reaped resolve-101-\S+ \(#101\); its [1-9]\d* lease\(s\) are released/);
    expect(t.records()[0]!.status).toBe('failed');
    expect(await t.leases()).toEqual([]);
  }, 60_000);

  it('releases the leases of a dispatch killed (-9) right after it took them with waves stop', async () => {
    const t = setUp({});
    const pause = path.join(shared.side, `pause-${count}`);
    const dispatch = t.run(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--wave-size', '1'], { WAVES_TEST_PAUSE_AFTER_LEASES: pause });
    await waitFor('the leases to be taken', () => existsSync(pause));
    dispatch.kill('SIGKILL');
    await dispatch.catch(() => undefined);
    const stopped = await t.run(['stop', '--all']);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(t.records()[0]!.status).toBe('cancelled');
    expect(await t.leases()).toEqual([]);
  }, 60_000);

  it('shows leases held in the name of a run that has no record as orphan, and status --reap releases them', async () => {
    const t = setUp({});
    const orphan = 'resolve-999-20260101T000000000Z';
    const journal = path.join(t.root, '.waves', 'leases.jsonl');
    mkdirSync(path.dirname(journal), { recursive: true });
    const at = new Date(Date.now() - 120_000).toISOString();
    // In this clone's name (its tag); beside it one named like a run but of no clone (a person's).
    const tag = await cloneTag(t.root);
    writeFileSync(
      journal,
      `${JSON.stringify({ v: 1, op: 'acquire', id: 'l-orphan-1', lane: 'packages/api', holder: `someone@host/${tag}/${orphan}`, at, ttlMs: 3_600_000 })}\n` +
        `${JSON.stringify({ v: 1, op: 'acquire', id: 'l-person-1', lane: 'packages/web', holder: `alice/resolve-7-20260101T000000000Z`, at, ttlMs: 3_600_000 })}\n`,
    );
    const status = await t.run(['status']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`${orphan}.*orphan`));
    expect(status.stderr).toMatch(new RegExp(`${orphan} .*has no record`));
    expect(await t.leases()).toHaveLength(2);
    const reaped = await t.run(['status', '--reap']);
    expect(reaped.exitCode, reaped.stderr).toBe(0);
    expect(reaped.stderr).toMatch(new RegExp(`released the leases of ${orphan}`));
    expect((await t.leases()).map((l) => l.holder)).toEqual(['alice/resolve-7-20260101T000000000Z']);
  }, 60_000);

  it('teaches its usage, and refuses bad input with exit code 2', async () => {
    const t = setUp({});
    const help = await t.run(['stop', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/Usage: waves stop \[--run ID \| --wave K \| --all\]/);
    expect(help.stdout).toMatch(/WAVES_RUN/);
    for (const args of [['stop'], ['stop', '--all', '--wave', '1'], ['stop', '--wave', 'x'], ['stop', '--run', 'resolve-999-20260101T000000000Z'], ['stop', '--bogus']]) {
      const result = await t.run(args);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    const nothing = await t.run(['stop', '--all']);
    expect(nothing.exitCode).toBe(0);
    expect(nothing.stderr).toMatch(/nothing to stop/);
  }, 60_000);
});
