/**
 * waves' own state — the lease journal's lock, the record locks, the seals and their folder, the
 * journal itself — planted or replaced by an agent of the shared work tree (or one that reads
 * WAVES_STATE_DIR from its environment): every lock failure is one line naming the lock and what to
 * do (exit 2), a run whose leases could not be released says so in its record and in waves status,
 * a harvest killed with -9 leaves a lock taken over at once, a run whose seal was replaced needs a
 * person while the rest of the wave is harvested, and a journal replaced while a run goes on — by
 * a FIFO, a link or a folder — is a lost lease.
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, TEST_STATE_DIR, waves } from '../helpers/example-repo.js';
import { useRunRepo } from '../helpers/run-repo.js';

const shared = useRunRepo({ clean: [path.join('.waves', 'leases.jsonl.lock')] });
let count = 0;

const runsDir = () => path.join(shared.root, '.dispatch-runs');
const journal = () => path.join(shared.root, '.waves', 'leases.jsonl');
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

/** A dispatch of the first wave whose agent is this shell script (`$1` the issue number). */
function dispatchWith(script: string, extra: string[] = []) {
  count += 1;
  const file = path.join(shared.side, `agent-${count}.sh`);
  writeFileSync(file, script);
  writeFileSync(path.join(shared.root, 'waves.config.json'), JSON.stringify({ agents: { evil: { command: ['sh', file, '{number}'] } }, verify: [['true']] }));
  return execa(process.execPath, [BIN, 'dispatch', '--from-issues', 'backlog.json', '--agent', 'evil', ...extra], {
    cwd: shared.root,
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
    killSignal: 'SIGKILL',
    env: { WAVES_STATE_DIR: TEST_STATE_DIR, WAVES_KILL_GRACE_MS: '300' },
  });
}

type Record = { id: string; issue: { number: number }; status: string; reason: string | null; leaseIds: string[] };
const records = (): Record[] =>
  readdirSync(runsDir())
    .filter((n) => /^resolve-\d+-\w+\.json$/.test(n))
    .map((n) => JSON.parse(readFileSync(path.join(runsDir(), n), 'utf8')) as Record);

/** The folder of this repository's seals in the test's state directory. */
function sealDir(): string {
  const base = path.join(TEST_STATE_DIR, 'runs');
  const id = records()[0]!.id;
  const hit = readdirSync(base).find((h) => {
    try {
      return readdirSync(path.join(base, h)).includes(`${id}.json`);
    } catch {
      return false;
    }
  });
  return path.join(base, hit!);
}

/** A pid no process has any more. */
function deadPid(): number {
  return spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim() as unknown as number;
}

describe('a lock that no waves made', () => {
  it('leaves runs whose leases could not be released saying so, in their records and in waves status, and refuses further lease changes with one line', async () => {
    const lock = `${journal()}.lock`;
    const result = await dispatchWith(
      `if [ "$1" = 102 ]; then mkdir -p "${lock}/x"; touch -d '1 hour ago' "${lock}"; fi
sleep 2
`,
    );
    expect(result.stderr).not.toMatch(/internal error/);
    const all = records();
    expect(all.length).toBeGreaterThan(0);
    // The dispatch failed, and says which leases remain and how to free them.
    expect(result.exitCode, result.stderr).toBe(1);
    for (const record of all) {
      expect(result.stderr).toContain(
        `waves: #${record.issue.number}: its leases ${record.leaseIds.join(', ')} were not released (see its record ${record.id}); once the cause is fixed, free them with: ${record.leaseIds.map((id) => `waves lease release --force ${id}`).join('; ')}`,
      );
    }
    for (const record of all) expect(record.reason, record.id).toMatch(new RegExp(`its leases were NOT released \\(${lock.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, the lock of the lease journal, is a folder with entries in it`));
    const status = await waves(['status'], shared.root);
    for (const record of all) expect(status.stderr).toContain(`${record.id} (#${record.issue.number}) ended`);
    expect(status.stderr).toMatch(/were not released; waves lease release --force l-/);
    for (const args of [['lease', 'acquire', 'packages/api', '--ttl', '5m'], ['lease', 'release', all[0]!.leaseIds[0]!, '--force']]) {
      const refused = await waves(args, shared.root);
      expect(refused.exitCode, refused.stderr).toBe(2);
      expect(lines(refused.stderr)).toEqual([`waves: ${lock}, the lock of the lease journal, is a folder with entries in it (x), not a lock waves made: remove it (rm -r ${lock}) if no waves command is running, and run again`]);
    }
    // As it says: once removed, the leases are freed.
    rmSync(lock, { recursive: true });
    for (const record of all) expect((await waves(['lease', 'release', ...record.leaseIds.slice(0, 1), '--force'], shared.root)).exitCode).toBe(0);
  }, 90_000);

  it('takes nothing from a run record that has no seal: waves status shows no verdict of it, and --reap releases no lease it names', async () => {
    const result = await dispatchWith('exit 0', ['--top', '1']);
    expect(result.exitCode, result.stderr).toBe(0);
    const real = records()[0]!;
    await waves(['harvest'], shared.root);
    // Another holder's lease, which a forged record will name as its own.
    const taken = await waves(['lease', 'acquire', 'docs', '--holder', 'someone', '--json'], shared.root);
    const leaseId = JSON.parse(taken.stdout).id as string;
    const forgedId = real.id.replace(/^resolve-\d+/, 'resolve-999');
    const copy = JSON.parse(readFileSync(path.join(runsDir(), `${real.id}.json`), 'utf8'));
    expect(copy.witness).toBeDefined();
    writeFileSync(
      path.join(runsDir(), `${forgedId}.json`),
      JSON.stringify({ ...copy, id: forgedId, issue: { ...real.issue, number: 999 }, status: 'running', pid: 999_999_999, supervisorPid: null, leaseIds: [leaseId], witness: { ...copy.witness, status: 'clean', commit: { sha: 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef', message: 'x', paths: ['README.md'] } } }, null, 2),
    );
    const status = await waves(['status', '--reap'], shared.root);
    expect(status.stderr).toMatch(new RegExp(`\\.dispatch-runs/${forgedId}\\.json has no sealed copy .*not reaped`));
    expect(status.stdout).not.toContain('deadbeef');
    const leases = JSON.parse((await waves(['lease', 'list', '--json'], shared.root)).stdout) as { id: string }[];
    expect(leases.map((l) => l.id)).toContain(leaseId);
    await waves(['lease', 'release', leaseId, '--force'], shared.root);
    rmSync(path.join(runsDir(), `${forgedId}.json`));
  });

  it('refuses a lease journal lock that is a FIFO or a file with one line, exit 2, at once', async () => {
    const lock = `${journal()}.lock`;
    mkdirSync(path.dirname(lock), { recursive: true });
    for (const plant of [() => spawnSync('mkfifo', [lock]), () => writeFileSync(lock, 'x')]) {
      plant();
      const result = await waves(['lease', 'acquire', 'packages/api', '--ttl', '5m'], shared.root);
      expect(result.exitCode, result.stderr).toBe(2);
      expect(lines(result.stderr)).toEqual([expect.stringMatching(new RegExp(`^waves: .*leases\\.jsonl\\.lock, the lock of the lease journal, is a (FIFO|file), not a lock waves made: remove it \\(rm -r .*\\)`))]);
      rmSync(lock);
    }
  }, 60_000);

  it('harvests a wave whatever stands at .dispatch-runs/<run>.json.lock, and takes over at once the lock of a harvest that was killed', async () => {
    const result = await dispatchWith('echo "agent $1"\n');
    expect(result.exitCode, result.stderr).toBe(0);
    const [first, second] = records();
    // Planted in the repository: a FIFO and a folder with an entry, old.
    spawnSync('mkfifo', [path.join(runsDir(), `${first!.id}.json.lock`)]);
    mkdirSync(path.join(runsDir(), `${second!.id}.json.lock`, 'x'), { recursive: true });
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(path.join(runsDir(), `${second!.id}.json.lock`), old, old);
    // The harvest lock of a harvest killed with -9: its folder and its holder, a process now gone.
    const seals = sealDir();
    const lock = path.join(seals, `${first!.id}.json.harvest.lock`);
    mkdirSync(lock);
    writeFileSync(path.join(seals, `${first!.id}.json.harvest.holder`), JSON.stringify({ pid: Number(deadPid()), start: 1, ino: statSync(lock).ino }));
    const harvest = await waves(['harvest'], shared.root);
    expect(harvest.stderr).not.toMatch(/internal error/);
    expect(harvest.stdout).not.toMatch(/being harvested/);
    expect(harvest.exitCode, harvest.stdout + harvest.stderr).not.toBe(1);
    expect(lstatSync(lock, { throwIfNoEntry: false })).toBeUndefined();
    // One whose holder still runs (this test) is busy, and says who holds it.
    mkdirSync(lock);
    writeFileSync(path.join(seals, `${first!.id}.json.harvest.holder`), JSON.stringify({ pid: process.pid, start: null, ino: statSync(lock).ino }));
    const busy = await waves(['harvest', '--json'], shared.root);
    expect(busy.stdout.replace(/\\"/g, '"')).toContain(`${first!.id}.json is being harvested by another waves harvest (pid ${process.pid})`);
    rmSync(lock, { recursive: true });
  }, 90_000);

  it('takes over the lock of a harvest killed with -9 between taking it and writing its holder', async () => {
    const result = await dispatchWith('echo "agent $1"\n');
    expect(result.exitCode, result.stderr).toBe(0);
    const pause = path.join(shared.side, `paused-${count}`);
    const killed = execa(process.execPath, [BIN, 'harvest'], { cwd: shared.root, reject: false, stdin: 'ignore', env: { WAVES_STATE_DIR: TEST_STATE_DIR, WAVES_TEST_PAUSE_AFTER_LOCK: pause } });
    shared.dispatches.push(killed);
    const until = Date.now() + 30_000;
    while (lstatSync(pause, { throwIfNoEntry: false }) === undefined && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    killed.kill('SIGKILL');
    await killed;
    const seals = sealDir();
    const first = records().sort((a, b) => a.issue.number - b.issue.number)[0]!;
    const lock = path.join(seals, `${first.id}.json.harvest.lock`);
    const holder = path.join(seals, `${first.id}.json.harvest.holder`);
    // Its lock is there, with no holder.
    expect(lstatSync(lock, { throwIfNoEntry: false })?.isDirectory()).toBe(true);
    expect(lstatSync(holder, { throwIfNoEntry: false })).toBeUndefined();
    // Its announcement (harvest.want.<pid>) names a process now gone: taken over at once.
    const harvest = await waves(['harvest'], shared.root);
    expect(harvest.stdout + harvest.stderr).not.toMatch(/being harvested/);
    expect(harvest.exitCode, harvest.stdout + harvest.stderr).not.toBe(1);
    expect(lstatSync(lock, { throwIfNoEntry: false })).toBeUndefined();
  }, 90_000);
});

type Report = { runs: { id: string; result: string }[]; needsPerson: { run: string; reasons: string[] }[] };
const reasonsOf = (report: Report, id: string) => report.needsPerson.find((p) => p.run === id)?.reasons ?? [];

describe('seals an agent replaced', () => {
  it('makes the run whose seal is a FIFO need a person, in one line, and harvests the rest of the wave', async () => {
    const result = await dispatchWith('echo "agent $1"\n');
    expect(result.exitCode, result.stderr).toBe(0);
    const [first, ...rest] = records();
    const seal = path.join(sealDir(), `${first!.id}.json`);
    rmSync(seal);
    spawnSync('mkfifo', [seal]);
    const harvest = await waves(['harvest', '--json'], shared.root);
    expect(harvest.stderr).not.toMatch(/internal error/);
    expect(harvest.exitCode, harvest.stderr).toBe(4);
    const report = JSON.parse(harvest.stdout) as Report;
    const byId = new Map(report.runs.map((r) => [r.id, r]));
    expect(reasonsOf(report, first!.id)).toEqual([expect.stringMatching(/^its sealed copy cannot be read \(the seal .* is not a regular file\)/)]);
    for (const record of rest) expect(byId.get(record.id), record.id).toBeDefined();
    rmSync(seal);
  }, 90_000);

  it('makes every run need a person, in one line each, when the folder of the seals was replaced by a file', async () => {
    const result = await dispatchWith('echo "agent $1"\n');
    expect(result.exitCode, result.stderr).toBe(0);
    const all = records();
    const seals = sealDir();
    rmSync(`${seals}.bak`, { recursive: true, force: true });
    await execa('mv', [seals, `${seals}.bak`]);
    writeFileSync(seals, 'x\n');
    try {
      const harvest = await waves(['harvest', '--json'], shared.root);
      expect(harvest.stderr).not.toMatch(/internal error/);
      expect(harvest.exitCode, harvest.stderr).toBe(4);
      const report = JSON.parse(harvest.stdout) as Report;
      expect(report.runs.map((r) => r.id).sort()).toEqual(all.map((r) => r.id).sort());
      for (const run of report.runs) expect(reasonsOf(report, run.id), run.id).toEqual([expect.stringMatching(/^[^\n]+$/)]);
    } finally {
      rmSync(seals, { force: true });
      await execa('mv', [`${seals}.bak`, seals]);
    }
  }, 90_000);
});

describe('a journal replaced while a run goes on', () => {
  for (const mode of ['fifo', 'link', 'dir'] as const) {
    it(`stops the run and records its lease lost when the journal becomes a ${mode === 'dir' ? 'folder' : mode === 'fifo' ? 'FIFO' : 'link'}`, async () => {
      const copy = path.join(shared.side, `journal-copy-${mode}`);
      const replace = {
        fifo: `rm -f "${journal()}"; mkfifo "${journal()}"`,
        link: `cp "${journal()}" "${copy}"; rm -f "${journal()}"; ln -s "${copy}" "${journal()}"`,
        dir: `rm -f "${journal()}"; mkdir "${journal()}"`,
      }[mode];
      const result = await dispatchWith(`if [ "$1" = 101 ]; then sleep 1; ${replace}; fi\nsleep 8\necho "still alive"\n`, ['--wave-size', '1']);
      expect(result.stderr).not.toMatch(/internal error/);
      const [record] = records();
      expect(record!.status).toBe('failed');
      expect(record!.reason).toMatch(/its lease on \S+ was lost \(the journal .*was replaced/);
      const status = await waves(['status'], shared.root);
      expect(status.exitCode, status.stderr).toBe(2);
      expect(lines(status.stderr)).toEqual([expect.stringMatching(/^waves: .*leases\.jsonl/)]);
      rmSync(journal(), { recursive: true, force: true });
    }, 90_000);
  }
});

describe('a runs folder planted as a link', () => {
  it('writes nothing into the folder .dispatch-runs links to (no `*` .gitignore hiding a repository of the person\'s), and refuses the dispatch with one line, exit 2', async () => {
    const outside = path.join(shared.side, 'person-repo');
    mkdirSync(outside, { recursive: true });
    rmSync(runsDir(), { recursive: true, force: true });
    symlinkSync(outside, runsDir());
    try {
      const result = await dispatchWith('echo "agent $1"\n');
      expect(readdirSync(outside)).toEqual([]);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(/^waves: \.dispatch-runs: a symbolic link in the repository .*never follows a link: remove it$/m);
      expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    } finally {
      rmSync(runsDir(), { force: true });
    }
  }, 60_000);
});
