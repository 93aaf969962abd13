/**
 * The descendant tracker on real processes (Linux): a daemon that cleared its environment and
 * left the session is found by the session its vanished leader made, by the tag it inherited, or
 * by the agent's output it holds; a reader of the log, a process that merely reuses a recorded
 * pid, and the children of a live process whose pid an id names are never taken for the run's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootId, DescendantTracker, listProcesses, processStart, readOomScoreAdj } from '@waves/dispatch';
import { alive, killAll, waitFor } from '../helpers/processes.js';

const started: number[] = [];
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'waves-track-'));
});
afterEach(() => {
  for (const file of ['daemon', 'child']) {
    const pid = Number(existsSync(path.join(dir, file)) ? readFileSync(path.join(dir, file), 'utf8') : 0);
    if (pid > 1) started.push(pid);
  }
  killAll(started);
  started.length = 0;
  rmSync(dir, { recursive: true, force: true });
});

/**
 * An agent (a session leader, as a supervisor starts one) that runs `env -i setsid sh -c …`: a
 * daemon ignoring SIGTERM and SIGHUP in a session of its own, whose pid goes to `dir/daemon`; its
 * session leader exits after `leaderMs`. `quiet` closes the daemon's output.
 */
function agent(options: { quiet: boolean; leaderMs: number; stdout?: number; marker?: string }): ChildProcess {
  const pidFile = path.join(dir, 'daemon');
  const daemon = options.quiet ? '(exec sleep 3600 </dev/null >/dev/null 2>&1) &' : '(exec sleep 3600) &';
  const code = `trap "" TERM HUP; ${daemon} echo $! > "$1"; ${options.leaderMs > 0 ? `sleep ${options.leaderMs / 1000}; ` : ''}exit 0`;
  const source = `require('node:child_process').execFileSync('env', [${options.marker ? JSON.stringify(options.marker) : "'-i'"}, 'setsid', 'sh', '-c', ${JSON.stringify(code)}, 'sh', ${JSON.stringify(pidFile)}], { stdio: 'inherit' }); setInterval(() => undefined, 1000);`;
  const child = spawn(process.execPath, ['-e', source], { detached: true, stdio: ['ignore', options.stdout ?? 'ignore', 'ignore'] });
  started.push(child.pid!);
  return child;
}

const daemonPid = async () => {
  await waitFor('the daemon', () => existsSync(path.join(dir, 'daemon')) && readFileSync(path.join(dir, 'daemon'), 'utf8').trim() !== '');
  return Number(readFileSync(path.join(dir, 'daemon'), 'utf8'));
};

describe.runIf(process.platform === 'linux')('the descendant tracker', () => {
  it('finds a daemon by the session of a leader it saw, once that leader is gone', async () => {
    const child = agent({ quiet: true, leaderMs: 1_000 });
    const tracker = DescendantTracker.forAgent(child.pid!, null, null)!;
    const timer = setInterval(() => tracker.poll(), 25);
    try {
      const daemon = await daemonPid();
      const leader = daemonSid(daemon);
      await waitFor('its session leader to exit', () => !alive(leader));
      expect(readOomScoreAdj(daemon)).toBe(readOomScoreAdj(process.pid));
      expect(tracker.observe(listProcesses()!)).toContain(daemon);
      expect(tracker.snapshot().sessions).toContain(leader);
    } finally {
      clearInterval(timer);
    }
  });

  for (const marked of [true, false]) {
    it(marked ? 'finds a daemon whose leader it never saw by the tag the agent inherited, with the run\'s marker' : 'never takes a daemon by the tag alone, without the run\'s marker (anyone may write a tag)', async () => {
      const tagged = DescendantTracker.tagSelf();
      expect(tagged).not.toBeNull();
      let child: ChildProcess;
      try {
        child = agent({ quiet: true, leaderMs: 0, ...(marked ? { marker: 'WAVES_RUN=tag-run' } : {}) });
      } finally {
        tagged!.untag();
      }
      expect(readOomScoreAdj(process.pid)).not.toBe(tagged!.tag);
      const daemon = await daemonPid();
      // No look while the leader lived: only the tag (and the marker) tie the daemon to the run.
      const tracker = DescendantTracker.forAgent(child.pid!, null, tagged!.tag, 'WAVES_RUN=tag-run')!;
      await waitFor('the daemon alone in its session', () => (listProcesses() ?? []).filter((p) => p.sid === daemonSid(daemon)).length === 1);
      if (marked) expect(tracker.observe(listProcesses()!)).toContain(daemon);
      else expect(tracker.observe(listProcesses()!)).not.toContain(daemon);
    });
  }

  it('finds a daemon that holds the agent\'s log open for writing, and never a reader of that log', async () => {
    const log = path.join(dir, 'agent.log');
    const fd = openSync(log, 'a');
    const child = agent({ quiet: false, leaderMs: 0, stdout: fd });
    const tracker = DescendantTracker.forAgent(child.pid!, log, null)!;
    const daemon = await daemonPid();
    const reader = spawn('tail', ['-f', log], { detached: true, stdio: 'ignore' });
    started.push(reader.pid!);
    await waitFor('the reader to open the log', () => {
      try {
        return readFileSync(`/proc/${reader.pid}/cmdline`, 'utf8').includes('tail') && readdirSync(`/proc/${reader.pid}/fd`).length >= 3;
      } catch {
        return false;
      }
    });
    const found = tracker.observe(listProcesses()!);
    expect(found).toContain(daemon);
    expect(found).not.toContain(reader.pid);
  });

  it('never takes a process that reuses a recorded pid (another start time), nor the children of a live process an id names', async () => {
    const source = `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore' }); require('node:fs').writeFileSync(${JSON.stringify(path.join(dir, 'child'))}, String(c.pid)); setInterval(() => undefined, 1000);`;
    const bystander = spawn(process.execPath, ['-e', source], { detached: true, stdio: 'ignore' });
    started.push(bystander.pid!);
    await waitFor('its child', () => existsSync(path.join(dir, 'child')) && readFileSync(path.join(dir, 'child'), 'utf8') !== '');
    const child = Number(readFileSync(path.join(dir, 'child'), 'utf8'));
    const start = processStart(bystander.pid!)!;
    const tracker = DescendantTracker.fromRecord({ boot: bootId(), since: 0, pids: [{ pid: bystander.pid!, start: start + 1 }], sessions: [bystander.pid!], outputs: [], tag: null })!;
    const found = tracker.observe(listProcesses()!);
    expect(found).not.toContain(bystander.pid);
    expect(found).not.toContain(child);
    expect(tracker.snapshot().sessions).not.toContain(bystander.pid);
    // Start times count from a boot: a record of another boot names nothing.
    expect(DescendantTracker.fromRecord({ boot: 'another-boot', since: 0, pids: [{ pid: bystander.pid!, start }], sessions: [], outputs: [] })).toBeNull();
  });
});

function daemonSid(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[3]);
}
