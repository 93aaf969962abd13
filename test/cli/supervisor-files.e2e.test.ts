/**
 * The supervisor's files in `.dispatch-runs/` (the log, the pid file, the record) against an agent
 * that replaces them — by a link to a file of the person's, to a 0600 secret, to /dev/zero, or by
 * a FIFO — once it runs: the supervisor writes and reads only the files it created before the
 * agent started, through their descriptors, so no victim changes, no secret is copied, nothing
 * hangs and nothing fills the disk.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, TEST_STATE_DIR } from '../helpers/example-repo.js';
import { useRunRepo } from '../helpers/run-repo.js';

const TOKEN = 'ghp_runfiles0123456789abcdefABCDEF';
const shared = useRunRepo();
let count = 0;

/** A dispatch of one issue whose agent is this shell script (`$1` the issue number), killed after `ms`. */
function dispatchWith(script: string, env: Record<string, string> = {}, ms = 40_000) {
  count += 1;
  const file = path.join(shared.side, `agent-${count}.sh`);
  writeFileSync(file, script);
  writeFileSync(path.join(shared.root, 'waves.config.json'), JSON.stringify({ agents: { evil: { command: ['sh', file, '{number}'] } } }));
  return execa(process.execPath, [BIN, 'dispatch', '--from-issues', 'backlog.json', '--agent', 'evil', '--wave-size', '1'], {
    cwd: shared.root,
    reject: false,
    stdin: 'ignore',
    timeout: ms,
    killSignal: 'SIGKILL',
    env: { WAVES_STATE_DIR: TEST_STATE_DIR, WAVES_KILL_GRACE_MS: '300', ...env },
  });
}

const runsDir = () => path.join(shared.root, '.dispatch-runs');
const recordOf = () => {
  const name = readdirSync(runsDir()).find((n) => /^resolve-\d+-\w+\.json$/.test(n))!;
  return JSON.parse(readFileSync(path.join(runsDir(), name), 'utf8')) as { id: string; status: string; reason: string | null; log: string };
};
/** A file of the person's that no run may touch. */
function victim(name: string, content: string, mode = 0o644): string {
  const file = path.join(shared.side, name);
  writeFileSync(file, content);
  chmodSync(file, mode);
  return file;
}
const leftovers = () => readdirSync(runsDir()).filter((n) => /\.tmp$/.test(n));

describe("the supervisor's files against an agent that replaces them", () => {
  it('never writes the pid through a link raced in at the pid file from the moment the record appears', async () => {
    const target = victim('victim-pid', 'precious\n');
    // A racer of its own (not the agent): from the record's first appearance it keeps replacing
    // the run's pid file by a link to the victim, as fast as it can, for 4 s.
    const racer = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs'), path = require('node:path');
         const [dir, target] = process.argv.slice(1);
         let id = null;
         const until = Date.now() + 30000;
         while (id === null && Date.now() < until) {
           try { id = (fs.readdirSync(dir).find((n) => /^resolve-\\d+-\\w+\\.json$/.test(n)) || '').replace(/\\.json$/, '') || null; } catch {}
         }
         const pid = path.join(dir, id + '.pid');
         const end = Date.now() + 4000;
         while (Date.now() < end) { try { fs.unlinkSync(pid); } catch {} try { fs.symlinkSync(target, pid); } catch {} }`,
        runsDir(),
        target,
      ],
      { stdio: 'ignore' },
    );
    const racing = new Promise((resolve) => racer.once('exit', resolve));
    try {
      const result = await dispatchWith('echo "agent $1"; sleep 1\n');
      expect(result.exitCode, result.stderr).toBe(0);
      await racing;
      expect(readFileSync(target, 'utf8')).toBe('precious\n');
    } finally {
      racer.kill('SIGKILL');
    }
  }, 60_000);

  it('writes its notes into the log it created, never into a file the log was replaced by a link to', async () => {
    const target = victim('victim-bashrc', 'alias ls="ls -F"\n');
    const journal = path.join(shared.root, '.waves', 'leases.jsonl');
    const result = await dispatchWith(
      `L="${runsDir()}/$WAVES_RUN.log"; P="${runsDir()}/$WAVES_RUN.pid"
echo "agent $1 before"
rm -f "$L" "$P"; ln -s "${target}" "$L"; ln -s "${target}" "$P"
sleep 0.5; : > "${journal}"
sleep 10
`,
    );
    expect(result.exitCode).toBe(1);
    const record = recordOf();
    expect(record.status).toBe('failed');
    expect(record.reason).toMatch(/its lease on \S+ was lost/);
    expect(readFileSync(target, 'utf8')).toBe('alias ls="ls -F"\n');
    // The log's name holds the agent's output and waves' note again: the link is replaced, never followed.
    expect(lstatSync(record.log).isFile()).toBe(true);
    const log = readFileSync(record.log, 'utf8');
    expect(log).toContain('agent 101 before');
    expect(log).toMatch(/\[waves\] its lease on \S+ was lost/);
    // So does the pid file's: the agent's pid again, in a file of its own.
    const pidFile = record.log.replace(/\.log$/, '.pid');
    expect(lstatSync(pidFile).isFile()).toBe(true);
    expect(readFileSync(pidFile, 'utf8')).toMatch(/^\d+\n$/);
  }, 60_000);

  it('redacts the log it created, never a 0600 secret the log was replaced by a link to, and keeps the log 0600', async () => {
    const secret = victim('secret.txt', 'AWS_SECRET=topsecretvalue\n', 0o600);
    const result = await dispatchWith(`echo "agent $1 says ${TOKEN}"; L="${runsDir()}/$WAVES_RUN.log"; rm -f "$L"; ln -s "${secret}" "$L"; sleep 0.3\n`, { GITHUB_TOKEN: TOKEN });
    expect(result.exitCode, result.stderr).toBe(0);
    const record = recordOf();
    expect(lstatSync(record.log).isFile()).toBe(true);
    const log = readFileSync(record.log, 'utf8');
    expect(log).not.toContain('topsecretvalue');
    expect(log).not.toContain(TOKEN);
    expect(log).toContain('agent 101 says [REDACTED]');
    expect(statSync(record.log).mode & 0o777).toBe(0o600);
    expect(readFileSync(secret, 'utf8')).toBe('AWS_SECRET=topsecretvalue\n');
    expect(leftovers()).toEqual([]);
  }, 60_000);

  it('ends promptly, without filling the disk, when the log is replaced by a link to /dev/zero', async () => {
    const began = Date.now();
    const result = await dispatchWith(`echo "agent $1 ${TOKEN}"; L="${runsDir()}/$WAVES_RUN.log"; rm -f "$L"; ln -s /dev/zero "$L"\n`, { GITHUB_TOKEN: TOKEN }, 30_000);
    expect(result.timedOut).toBe(false);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(Date.now() - began).toBeLessThan(20_000);
    const record = recordOf();
    expect(statSync(record.log).size).toBeLessThan(10_000);
    expect(readFileSync(record.log, 'utf8')).toContain('agent 101 [REDACTED]');
    expect(leftovers()).toEqual([]);
  }, 60_000);

  it('ends promptly, with the run succeeded, when the log is replaced by a FIFO', async () => {
    const result = await dispatchWith(`echo "agent $1 ${TOKEN}"; L="${runsDir()}/$WAVES_RUN.log"; rm -f "$L"; mkfifo "$L"\n`, { GITHUB_TOKEN: TOKEN }, 30_000);
    expect(result.timedOut).toBe(false);
    expect(result.exitCode, result.stderr).toBe(0);
    const record = recordOf();
    expect(record.status).toBe('succeeded');
    expect(lstatSync(record.log).isFile()).toBe(true);
    expect(readFileSync(record.log, 'utf8')).toContain('agent 101 [REDACTED]');
    expect(leftovers()).toEqual([]);
  }, 60_000);

  it('writes no record through a runs folder an agent swapped for a link while it ran', async () => {
    const outside = path.join(shared.side, 'elsewhere');
    await execa('mkdir', ['-p', outside]);
    // A shared-tree agent moves .dispatch-runs away and puts a link to a folder of the person's in its place.
    const result = await dispatchWith(
      `echo "agent $1"; ln -s "${outside}" "${runsDir()}.link" && mv "${runsDir()}" "${runsDir()}.moved" && mv -T "${runsDir()}.link" "${runsDir()}"; sleep 1.5\n`,
    );
    try {
      expect(readdirSync(outside)).toEqual([]);
      expect(result.stderr).not.toMatch(/internal error/);
    } finally {
      if (lstatSync(runsDir()).isSymbolicLink()) rmSync(runsDir());
      if (existsSync(`${runsDir()}.moved`)) {
        rmSync(runsDir(), { recursive: true, force: true });
        await execa('mv', [`${runsDir()}.moved`, runsDir()]);
      }
    }
  }, 60_000);
});
