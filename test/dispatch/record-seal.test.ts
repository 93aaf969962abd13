/**
 * The seal of run records: a copy in waves' state directory, outside the repository, written
 * before the repository's copy; what dispatch fixed keeps its sealed value whatever a later write
 * carries; a record without a seal stays without one.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRecord, readSeal, readTrustedRecord, rewrittenFields, sealFileOf, stateDir, writeRecord, writeWitness, type RunRecord } from '@waves/dispatch';

let dir: string;
const saved = process.env.WAVES_STATE_DIR;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'waves-seal-'));
  process.env.WAVES_STATE_DIR = path.join(dir, 'state');
});
afterEach(() => {
  process.env.WAVES_STATE_DIR = saved;
  rmSync(dir, { recursive: true, force: true });
});

const record = (over: Partial<RunRecord> = {}): RunRecord => ({
  v: 1, id: 'resolve-7-20261130T000000000Z', issue: { number: 7, title: 'Seven' }, wave: 1, agent: 'fake', argv: ['agent'], cwd: '/repo',
  model: null, tier: 'default', leaseIds: ['l1'], leaseTtlMs: 60_000, journal: '/repo/.waves/leases.jsonl', log: 'x.log', pidFile: 'x.pid',
  worktree: null, timeoutMs: null, supervisorPid: null, pid: null, status: 'starting', exitCode: null, signal: null, reason: null,
  startedAt: '2026-11-30T00:00:00.000Z', endedAt: null, dispatchId: 'dispatch-1',
  scope: { fence: ['src/a.ts'], lanes: ['src'], serial: null, labels: [], leaves: [] }, start: { head: 'abc', dirty: [] }, ...over,
});

describe('stateDir', () => {
  it('is WAVES_STATE_DIR, else XDG_STATE_HOME/waves (when absolute), else ~/.local/state/waves', () => {
    expect(stateDir({ WAVES_STATE_DIR: '/s', XDG_STATE_HOME: '/x' })).toBe('/s');
    expect(stateDir({ XDG_STATE_HOME: '/x' })).toBe('/x/waves');
    expect(stateDir({ XDG_STATE_HOME: 'relative' })).toBe(path.join(homedir(), '.local', 'state', 'waves'));
    expect(stateDir({})).toBe(path.join(homedir(), '.local', 'state', 'waves'));
  });
});

describe('writeRecord and the seal', () => {
  it('seals a new record in the state directory, one folder per runs directory, readable by its owner alone', async () => {
    const file = path.join(dir, 'repo', '.dispatch-runs', 'resolve-7-20261130T000000000Z.json');
    await writeRecord(file, record());
    const seal = await sealFileOf(file);
    expect(seal.startsWith(path.join(dir, 'state', 'runs') + path.sep)).toBe(true);
    expect(statSync(seal).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(seal)).mode & 0o777).toBe(0o700);
    expect(readFileSync(seal, 'utf8')).toBe(readFileSync(file, 'utf8'));
    // Another repository's runs directory gets another folder.
    const other = path.join(dir, 'other', '.dispatch-runs', 'resolve-7-20261130T000000000Z.json');
    await writeRecord(other, record());
    expect(path.dirname(await sealFileOf(other))).not.toBe(path.dirname(seal));
  });

  it('keeps what dispatch fixed: a write carrying a rewritten fence changes neither copy', async () => {
    const file = path.join(dir, 'repo', '.dispatch-runs', 'resolve-7-20261130T000000000Z.json');
    await writeRecord(file, record());
    // As an agent would, then the supervisor settling the run from that copy.
    const copy = await readRecord(file);
    writeFileSync(file, JSON.stringify({ ...copy, scope: { ...copy.scope!, fence: ['./'] } }));
    const rewritten = await readRecord(file);
    expect(rewrittenFields((await readSeal(file))!, rewritten)).toEqual(['scope.fence']);
    await writeRecord(file, { ...rewritten, status: 'succeeded', exitCode: 0 });
    for (const settled of [(await readSeal(file))!, await readRecord(file)]) {
      expect(settled.scope!.fence).toEqual(['src/a.ts']);
      expect(settled.status).toBe('succeeded');
    }
  });

  it('writes a witness from the seal, and leaves a record found without a seal unsealed', async () => {
    const file = path.join(dir, 'repo', '.dispatch-runs', 'resolve-7-20261130T000000000Z.json');
    await writeRecord(file, record());
    rmSync(await sealFileOf(file));
    await writeRecord(file, record({ status: 'succeeded' }));
    expect(await readSeal(file)).toBeNull();
    expect((await readRecord(file)).status).toBe('succeeded');
    const witness = { reasons: ['x'] } as unknown as NonNullable<RunRecord['witness']>;
    await writeWitness(file, await readRecord(file), witness);
    expect(await readSeal(file)).toBeNull();
  });

  it('refuses a state directory inside the repository', async () => {
    const repo = path.join(dir, 'repo');
    mkdirSync(path.join(repo, '.dispatch-runs'), { recursive: true });
    process.env.WAVES_STATE_DIR = path.join(repo, 'state');
    await expect(writeRecord(path.join(repo, '.dispatch-runs', 'resolve-7-x.json'), record())).rejects.toThrow(/lies inside the repository/);
    expect(readdirSync(path.join(repo, '.dispatch-runs'))).toEqual([]);
  });

  it('writes no copy through a runs folder another process keeps swapping for a link (no check-then-write race)', async () => {
    const runs = path.join(dir, 'repo', '.dispatch-runs');
    const file = path.join(runs, 'resolve-7-20261130T000000000Z.json');
    await writeRecord(file, record());
    const outside = path.join(dir, 'elsewhere');
    mkdirSync(outside);
    symlinkSync(outside, `${runs}.link`);
    // An agent's loop: the runs folder and a link to a folder of the person's trade places, over and over.
    const swapper = spawn(process.execPath, ['-e', `
      const fs = require('node:fs');
      const [runs, until] = [process.argv[1], Date.now() + 60000];
      const move = (a, b) => { try { fs.renameSync(a, b); } catch { fs.rmSync(b, { recursive: true, force: true }); try { fs.renameSync(a, b); } catch {} } };
      while (Date.now() < until && !fs.existsSync(runs + '.stop')) {
        try { move(runs, runs + '.real'); move(runs + '.link', runs); move(runs, runs + '.link'); move(runs + '.real', runs); } catch {}
      }
    `, runs], { stdio: 'ignore' });
    const ended = new Promise((done) => swapper.once('exit', done));
    try {
      for (let i = 0; i < 400; i++) await writeRecord(file, record({ status: i % 2 ? 'running' : 'starting' }), { fixing: true }).catch(() => undefined);
    } finally {
      writeFileSync(`${runs}.stop`, '');
      await ended;
    }
    expect(readdirSync(outside)).toEqual([]);
  });

  it('reads a copy replaced by a FIFO, a link or a huge file as no run record, at once', async () => {
    const file = path.join(dir, 'repo', '.dispatch-runs', 'resolve-7-20261130T000000000Z.json');
    await writeRecord(file, record());
    const sealed = readFileSync(file, 'utf8');
    rmSync(file);
    execFileSync('mkfifo', [file]);
    await expect(readRecord(file)).rejects.toThrow('resolve-7-20261130T000000000Z.json is not a regular file (a FIFO): not a run record');
    rmSync(file);
    writeFileSync(path.join(dir, 'elsewhere.json'), sealed);
    symlinkSync(path.join(dir, 'elsewhere.json'), file);
    await expect(readRecord(file)).rejects.toThrow(/is a symbolic link \(not followed\): not a run record/);
    rmSync(file);
    writeFileSync(file, ' '.repeat(17 * 1024 * 1024));
    await expect(readRecord(file)).rejects.toThrow(/is larger than 16 MB/);
    // The seal is what waves acts on, and it is untouched.
    expect((await readTrustedRecord(file)).scope!.fence).toEqual(['src/a.ts']);
  });
});
