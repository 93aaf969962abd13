/**
 * Red team M (2026-12-07; these held) — the supervisor's "not started" path (supervise.ts, notStarted): #101's agent writes
 * AGENTS.md into #102's fresh worktree while #102's worktree setup runs (red team K4), so #102 ends
 * `failed` without its agent. Its setup left a process running; is it stopped, are the leases
 * released, the hooks gone, the record true?
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostileSetup, plantingAgent, type Hostile } from '../helpers/hostile-setup.js';

let t: Hostile | null = null;
afterEach(async () => {
  if (t) writeFileSync(path.join(t.scratch, 'stop'), '');
  await new Promise((r) => setTimeout(r, 300));
  await t?.dispose();
  t = null;
});

/** Whether a process runs: a zombie (killed, not yet reaped by whoever adopted it) does not. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
};

const K4_AGENT = plantingAgent('echo ran > {scratch}/seen; echo "// fix" >> packages/web/src/index.ts');

describe('red team M: not started', () => {
  for (const [name, daemon] of [
    // A plain daemon in its own session, in the worktree, with the run's marker.
    ['a daemon (setsid) that stays put', `while [ ! -f {scratch}/stop ]; do echo $$ > {scratch}/pid; sleep 0.2; done`],
    // A daemon that hops: a new process in a session of its own every 50 ms, the old one gone.
    ['a daemon that hops to a new session every 50 ms', `[ -f {scratch}/stop ] && exit 0; echo $$ > {scratch}/pid; sleep 0.05; setsid sh {scratch}/daemon.sh </dev/null >/dev/null 2>&1 &`],
  ] as const) {
    it.runIf(process.platform === 'linux')(`M3: #102 not started; its worktree setup left ${name}: stopped, leases released, no hooks, record failed`, async () => {
      t = await hostileSetup({
        script: K4_AGENT,
        config: {
          fence: { live: true },
          worktree: { setup: [['sh', '-c', `case "$PWD" in */issue-102) setsid sh SCRATCH/daemon.sh </dev/null >/dev/null 2>&1 & ;; esac; sleep 2`]] },
        },
      });
      writeFileSync(path.join(t.scratch, 'daemon.sh'), daemon.replaceAll('{scratch}', t.scratch));
      // The config names the scratch folder through a placeholder the helper does not know: rewrite it.
      const configFile = path.join(t.root, 'waves.config.json');
      writeFileSync(configFile, readFileSync(configFile, 'utf8').replaceAll('SCRATCH', t.scratch));
      const d = await t.dispatch('--worktree');
      const record = JSON.parse(readFileSync(t.recordFile(102), 'utf8')) as { status: string; reason: string; leaseIds: string[] };
      const seen = existsSync(path.join(t.scratch, 'seen'));
      await new Promise((r) => setTimeout(r, 500));
      const pid = existsSync(path.join(t.scratch, 'pid')) ? Number(readFileSync(path.join(t.scratch, 'pid'), 'utf8')) : 0;
      const leases = await t.waves('lease', 'list', '--json');
      const hooks = ['.claude/settings.local.json', '.claude/settings.json', 'opencode.json'].filter((f) => existsSync(path.join(t!.worktree(102), f)));
      expect({ exit: d.exitCode, seen, status: record.status }).toMatchObject({ seen: false, status: 'failed' });
      expect(record.reason).toMatch(/AGENTS\.md/);
      expect(hooks).toEqual([]);
      expect(leases.stdout).not.toMatch(/"issue":\s*102|#102/);
      expect(pid).toBeGreaterThan(0);
      expect({ pid, alive: pid > 0 && alive(pid) }).toEqual({ pid: expect.any(Number), alive: false });
    }, 180_000);
  }
});

describe('red team M: the supervisor killed (-9) by its own worktree setup', () => {
  it.runIf(process.platform === 'linux')('M4: #102 setup starts a daemon then kill -9 its supervisor: dispatch settles the run, releases its leases, stops the daemon', async () => {
    t = await hostileSetup({
      script: K4_AGENT,
      config: {
        fence: { live: true },
        worktree: { setup: [['sh', '-c', `case "$PWD" in */issue-102) setsid sh SCRATCH/daemon.sh </dev/null >/dev/null 2>&1 & sleep 0.5; kill -9 $PPID ;; esac; sleep 2`]] },
      },
    });
    writeFileSync(path.join(t.scratch, 'daemon.sh'), `while [ ! -f ${t.scratch}/stop ]; do echo $$ > ${t.scratch}/pid; sleep 0.2; done`);
    const configFile = path.join(t.root, 'waves.config.json');
    writeFileSync(configFile, readFileSync(configFile, 'utf8').replaceAll('SCRATCH', t.scratch));
    const d = await t.dispatch('--worktree');
    const record = JSON.parse(readFileSync(t.recordFile(102), 'utf8')) as { status: string; reason: string };
    await new Promise((r) => setTimeout(r, 500));
    const pid = Number(readFileSync(path.join(t.scratch, 'pid'), 'utf8'));
    const leases = await t.waves('lease', 'list', '--json');
    expect(pid).toBeGreaterThan(0);
    expect({ status: record.status, seen: existsSync(path.join(t.scratch, 'seen')) }).toEqual({ status: 'failed', seen: false });
    expect(leases.stdout).not.toMatch(/resolve-102/);
    expect({ pid, alive: alive(pid), exit: d.exitCode }).toMatchObject({ alive: false });
  }, 180_000);
});
