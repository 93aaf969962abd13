/**
 * What a supervisor guarantees, with the fake agent on one temporary git repository: every run
 * ends with its processes gone (daemons, grandchildren, a setsid escapee) whatever the ending;
 * a flood of output is logged, not fatal; a lost lease stops the run; a dead supervisor's run is
 * settled by the foreground dispatch; the GitHub token stays out of agents and logs.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_AGENT_CONFIG, waves } from '../helpers/example-repo.js';
import { alive, waitFor } from '../helpers/processes.js';
import { useRunRepo } from '../helpers/run-repo.js';

interface Record_ {
  id: string;
  issue: { number: number };
  pid: number | null;
  supervisorPid: number | null;
  status: string;
  reason: string | null;
  exitCode: number | null;
  log: string;
}
interface TraceEvent {
  event: 'start' | 'end' | 'grandchild' | 'env';
  issue: number;
  pid: number;
  env?: Record<string, string>;
}

const TOKEN = 'ghp_supervision0123456789abcdef';
const shared = useRunRepo({ config: { agents: FAKE_AGENT_CONFIG } });
const { started, dispatches } = shared;
let count = 0;

/** One test's fake-agent script and trace, and the runs of the repository. */
function setUp(script: Record<string, unknown>, config: Record<string, unknown> = { agents: FAKE_AGENT_CONFIG }) {
  const root = shared.root;
  count += 1;
  const scriptFile = path.join(shared.side, `script-${count}.json`);
  const traceFile = path.join(shared.side, `trace-${count}.jsonl`);
  writeFileSync(scriptFile, JSON.stringify(script));
  writeFileSync(path.join(root, 'waves.config.json'), JSON.stringify(config));
  // Short grace: a SIGTERM-ignoring process is killed 300 ms after its SIGTERM.
  const env = { FAKE_AGENT_SCRIPT: scriptFile, FAKE_AGENT_TRACE: traceFile, WAVES_KILL_GRACE_MS: '300' };
  const t = {
    root,
    env,
    dispatch: (args: string[], extraEnv: Record<string, string> = {}) => {
      const dispatch = waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--wave-size', '1', ...args], root, { ...env, ...extraEnv });
      dispatches.push(dispatch);
      return dispatch;
    },
    records: (): Record_[] => {
      const dir = path.join(root, '.dispatch-runs');
      if (!existsSync(dir)) return [];
      const records = readdirSync(dir)
        .filter((n) => /^resolve-.*\.json$/.test(n))
        .map((n) => JSON.parse(readFileSync(path.join(dir, n), 'utf8')) as Record_);
      for (const r of records) for (const pid of [r.pid, r.supervisorPid]) if (pid) started.add(pid);
      return records;
    },
    trace: (): TraceEvent[] => {
      const events = existsSync(traceFile) ? readFileSync(traceFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as TraceEvent) : [];
      for (const e of events) if (e.pid) started.add(e.pid);
      return events;
    },
    grandchildren: () => t.trace().filter((e) => e.event === 'grandchild').map((e) => e.pid),
    leases: async () => JSON.parse((await waves(['lease', 'list', '--json'], root)).stdout) as { lane: string }[],
  };
  return t;
}

describe('a supervised run', () => {
  it('ends with its whole process group gone when the agent exits 0 leaving a daemon, and a setsid escapee too', async () => {
    // A setsid escapee is found by its marker in /proc: Linux only.
    const linux = process.platform === 'linux';
    const t = setUp({ default: { daemon: true, setsid: linux } });
    const result = await t.dispatch([]);
    expect(result.exitCode, result.stderr).toBe(0);
    const [record] = t.records();
    expect(record!.status).toBe('succeeded');
    const left = t.grandchildren();
    expect(left).toHaveLength(linux ? 2 : 1);
    // The record settled only once they were gone.
    for (const pid of left) expect(alive(pid), `pid ${pid}`).toBe(false);
  }, 60_000);

  // The tracker reads /proc: Linux only.
  it.runIf(process.platform === 'linux')('leaves no daemon that cleared its environment and left the session (env -i setsid): gone when the record settles', async () => {
    const t = setUp({ default: { escape: true } });
    const result = await t.dispatch([]);
    expect(result.exitCode, result.stderr).toBe(0);
    const [record] = t.records();
    expect(record!.status).toBe('succeeded');
    const [daemon] = t.grandchildren();
    expect(daemon).toBeGreaterThan(1);
    expect(alive(daemon), `pid ${daemon}`).toBe(false);
  }, 60_000);

  it.runIf(process.platform === 'linux')('leaves no such daemon behind either when it closed its output: the tracker saw its session leader', async () => {
    const t = setUp({ default: { escape: 'quiet' } });
    const result = await t.dispatch([]);
    expect(result.exitCode, result.stderr).toBe(0);
    const [record] = t.records();
    expect(record!.status).toBe('succeeded');
    const [daemon] = t.grandchildren();
    expect(daemon).toBeGreaterThan(1);
    expect(alive(daemon), `pid ${daemon}`).toBe(false);
  }, 60_000);

  it('stops every process of every run on Ctrl-C, a SIGTERM-ignoring grandchild too, and records them cancelled', async () => {
    const t = setUp({ default: { grandchild: true } });
    const dispatch = t.dispatch(['--wave-size', '2']);
    await waitFor('two running agents with their grandchildren', () => t.records().filter((r) => r.status === 'running').length === 2 && t.grandchildren().length === 2);
    dispatch.kill('SIGINT');
    const result = await dispatch;
    expect(result.exitCode, result.stderr).toBe(130);
    const records = t.records();
    expect(records.map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
    for (const pid of [...t.grandchildren(), ...records.flatMap((r) => [r.pid, r.supervisorPid])]) expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(await t.leases()).toEqual([]);
  }, 60_000);

  it('stops an agent past --timeout with its SIGTERM-ignoring grandchild, and records it timed_out', async () => {
    const t = setUp({ default: { grandchild: true } });
    const result = await t.dispatch(['--timeout', '1s']);
    expect(result.exitCode).toBe(1);
    const [record] = t.records();
    expect(record!.status).toBe('timed_out');
    const [grandchild] = t.grandchildren();
    expect(alive(grandchild)).toBe(false);
    expect(alive(record!.pid)).toBe(false);
    expect(await t.leases()).toEqual([]);
  }, 60_000);

  it('logs more than 100 MB of output and records the agent succeeded', async () => {
    const t = setUp({ default: { flood: 110 * 1024 * 1024 } });
    const result = await t.dispatch([]);
    const [record] = t.records();
    try {
      expect(result.exitCode, result.stderr).toBe(0);
      expect(record!.status).toBe('succeeded');
      expect(statSync(record!.log).size).toBeGreaterThan(110 * 1024 * 1024);
    } finally {
      rmSync(record!.log, { force: true });
    }
  }, 120_000);

  it('truncates the log at logs.maxBytes with a note, while the agent runs on to its end', async () => {
    const t = setUp({ default: { flood: 5 * 1024 * 1024 } }, { agents: FAKE_AGENT_CONFIG, logs: { maxBytes: 100_000 } });
    const result = await t.dispatch([]);
    expect(result.exitCode, result.stderr).toBe(0);
    const [record] = t.records();
    expect(record!.status).toBe('succeeded');
    const log = readFileSync(record!.log, 'utf8');
    expect(log).toContain('[waves] log truncated at 100000 bytes');
    expect(log.length).toBeLessThan(101_000);
    expect(t.trace().some((e) => e.event === 'end')).toBe(true);
  }, 60_000);

  it('stops the run and records it failed when its lease is lost (the journal truncated)', async () => {
    const t = setUp({ default: { grandchild: true } });
    const dispatch = t.dispatch([]);
    await waitFor('a running agent', () => t.records().some((r) => r.status === 'running') && t.grandchildren().length === 1);
    writeFileSync(path.join(t.root, '.waves', 'leases.jsonl'), '');
    const result = await dispatch;
    expect(result.exitCode).toBe(1);
    const [record] = t.records();
    expect(record!.status).toBe('failed');
    expect(record!.reason).toMatch(/its lease on packages\/\S+ was lost/);
    expect(readFileSync(record!.log, 'utf8')).toMatch(/\[waves\] its lease on packages\/\S+ was lost/);
    for (const pid of [record!.pid, ...t.grandchildren()]) expect(alive(pid)).toBe(false);
  }, 60_000);

  it('notices a lease lost as the agent starts (the journal emptied at once), and records the run failed', async () => {
    const journal = path.join(shared.root, '.waves', 'leases.jsonl');
    // A shell empties the journal within a few milliseconds of the agent's start, before a node agent could.
    const agents = { fake: { command: ['sh', '-c', ': > "$0"; exec "$@"', journal, ...FAKE_AGENT_CONFIG.fake.command] } };
    const t = setUp({ default: { grandchild: true } }, { agents });
    const result = await t.dispatch(['--timeout', '20s']);
    expect(result.exitCode).toBe(1);
    const [record] = t.records();
    expect(record!.status).toBe('failed');
    expect(record!.reason).toMatch(/its lease on \S+ was lost/);
    for (const pid of [record!.pid, ...t.grandchildren()]) expect(alive(pid), `pid ${pid}`).toBe(false);
  }, 60_000);

  it('is taken over by the foreground dispatch when its supervisor is stopped (SIGSTOP): past --timeout, timed_out, processes gone, leases released', async () => {
    const t = setUp({ default: { stopSupervisor: true, grandchild: true } });
    const result = await t.dispatch(['--timeout', '2s']);
    expect(result.exitCode).toBe(1);
    const [record] = t.records();
    expect(record!.status).toBe('timed_out');
    expect(record!.reason).toMatch(/supervisor \(pid \d+\) was stopped/);
    for (const pid of [record!.pid, record!.supervisorPid, ...t.grandchildren()]) expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(await t.leases()).toEqual([]);
  }, 60_000);

  it('is settled failed by the foreground dispatch when its supervisor is stopped and there is no timeout', async () => {
    const t = setUp({ default: { stopSupervisor: true, grandchild: true } });
    const result = await t.dispatch([]);
    expect(result.exitCode).toBe(1);
    const [record] = t.records();
    expect(record!.status).toBe('failed');
    expect(record!.reason).toMatch(/supervisor \(pid \d+\) was stopped/);
    for (const pid of [record!.pid, record!.supervisorPid, ...t.grandchildren()]) expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(await t.leases()).toEqual([]);
  }, 60_000);

  it('is settled by the foreground dispatch when its supervisor is killed: agent gone, record failed, leases released', async () => {
    const t = setUp({ default: { grandchild: true } });
    const dispatch = t.dispatch([]);
    await waitFor('a running agent', () => t.records().some((r) => r.status === 'running') && t.grandchildren().length === 1);
    const [running] = t.records();
    process.kill(running!.supervisorPid!, 'SIGKILL');
    const result = await dispatch;
    expect(result.exitCode).toBe(1);
    const [record] = t.records();
    expect(record!.status).toBe('failed');
    expect(record!.reason).toMatch(/supervisor \(pid \d+\) died/);
    expect(result.stderr).toMatch(/#101 failed: .*supervisor/);
    for (const pid of [record!.pid, ...t.grandchildren()]) expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(await t.leases()).toEqual([]);
  }, 60_000);

  it('keeps GITHUB_TOKEN and GH_TOKEN out of an agent, and marks it with its run id', async () => {
    const t = setUp({ default: { printEnv: true } });
    const result = await t.dispatch([], { GITHUB_TOKEN: TOKEN, GH_TOKEN: TOKEN, GH_ENTERPRISE_TOKEN: TOKEN, ANTHROPIC_API_KEY: 'sk-kept' });
    expect(result.exitCode, result.stderr).toBe(0);
    const [record] = t.records();
    const env = t.trace().find((e) => e.event === 'env')!.env!;
    expect(Object.keys(env).filter((k) => /TOKEN/.test(k))).toEqual([]);
    expect(env.ANTHROPIC_API_KEY).toBe('sk-kept');
    expect(env.WAVES_RUN).toBe(record!.id);
    expect(readFileSync(record!.log, 'utf8')).not.toContain(TOKEN);
  }, 60_000);

  it('passes a token through when agents.<name>.env names it in your own config, and redacts it from the log', async () => {
    const t = setUp({ default: { printEnv: true } });
    // Only a config named with --config may pass a token (a repository's own may not).
    const mine = path.join(shared.side, `mine-${count}.json`);
    writeFileSync(mine, JSON.stringify({ agents: { fake: { ...FAKE_AGENT_CONFIG.fake, env: ['GITHUB_TOKEN'] } } }));
    const result = await t.dispatch(['--config', mine], { GITHUB_TOKEN: TOKEN, GH_TOKEN: TOKEN });
    expect(result.exitCode, result.stderr).toBe(0);
    const [record] = t.records();
    const env = t.trace().find((e) => e.event === 'env')!.env!;
    expect(env.GITHUB_TOKEN).toBe(TOKEN);
    expect(env.GH_TOKEN).toBeUndefined();
    const log = readFileSync(record!.log, 'utf8');
    expect(log).toContain('GITHUB_TOKEN=[REDACTED]');
    expect(log).not.toContain(TOKEN);
  }, 60_000);
});
