import { link, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLease, acquireLeases, appendEvents, compactJournal, compactLeaseJournal, journalBackend, listLeases, readJournal, releaseLease, releaseLeases, renewLease, successorOf, withJournalLock } from '@waves/dispatch';
import { foldLeases, lanesOverlap, LeaseEventSchema, type LeaseEvent } from '@waves/planner';

const RACER = fileURLToPath(new URL('../fixtures/agents/lease-racer.mjs', import.meta.url));
const IMPORT_RACER = fileURLToPath(new URL('../fixtures/agents/import-racer.mjs', import.meta.url));
const STALLER = fileURLToPath(new URL('../fixtures/agents/lock-staller.mjs', import.meta.url));
const LATE_WRITER = fileURLToPath(new URL('../fixtures/agents/lock-late-writer.mjs', import.meta.url));
let dir: string;
let journal: string;
const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const at = (ms: number) => () => new Date(T0 + ms);
const T_ISO = new Date(T0).toISOString();

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'waves-leases-'));
  journal = path.join(dir, '.waves', 'leases.jsonl');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the lease fold', () => {
  it('keeps acquired leases until they are released or expire, and renews only live ones', () => {
    const events: LeaseEvent[] = [
      { v: 1, op: 'acquire', id: 'a', lane: 'packages/cli/', holder: 'h1', at: '2026-11-29T12:00:00.000Z', ttlMs: 60_000 },
      { v: 1, op: 'acquire', id: 'b', lane: './docs', holder: 'h2', at: '2026-11-29T12:00:00.000Z', ttlMs: 10_000 },
      { v: 1, op: 'renew', id: 'a', at: '2026-11-29T12:00:30.000Z', ttlMs: 60_000 },
      { v: 1, op: 'renew', id: 'b', at: '2026-11-29T12:00:20.000Z', ttlMs: 60_000 },
      { v: 1, op: 'release', id: 'x', at: '2026-11-29T12:00:40.000Z' },
    ];
    expect(foldLeases(events, T0 + 5_000).map((l) => [l.id, l.lane, l.until])).toEqual([
      ['a', 'packages/cli', '2026-11-29T12:01:30.000Z'],
      ['b', 'docs', '2026-11-29T12:00:10.000Z'],
    ]);
    expect(foldLeases(events, T0 + 75_000).map((l) => l.id)).toEqual(['a']);
    expect(foldLeases([...events, { v: 1, op: 'release', id: 'a', at: '2026-11-29T12:00:50.000Z' }], T0 + 60_000)).toEqual([]);
  });

  it('treats a path, its ancestors and its descendants as overlapping', () => {
    expect(lanesOverlap('packages/a', 'packages/a/src/x.ts')).toBe(true);
    expect(lanesOverlap('packages/a/src/x.ts', 'packages/a/')).toBe(true);
    expect(lanesOverlap('packages/a', 'packages/ab')).toBe(false);
    // `.` is the whole repository: it overlaps every lane.
    expect(lanesOverlap('.', 'packages/a/src/x.ts')).toBe(true);
    expect(lanesOverlap('docs', './')).toBe(true);
  });
});

describe('the lease journal', () => {
  it('acquires, refuses an overlapping lane of another holder, renews, releases and lists', async () => {
    const first = await acquireLease(journal, { lane: 'packages/a', holder: 'h1', ttlMs: 60_000, now: at(0) });
    expect(first).toMatchObject({ status: 'acquired', lane: 'packages/a', until: '2026-11-29T12:01:00.000Z' });
    expect(await acquireLease(journal, { lane: 'packages/a/src/x.ts', holder: 'h2', ttlMs: 60_000, now: at(1_000) })).toMatchObject({
      status: 'refused', holder: 'h1', until: '2026-11-29T12:01:00.000Z', heldLane: 'packages/a',
    });
    expect(await acquireLease(journal, { lane: 'packages/a/src/x.ts', holder: 'h1', ttlMs: 60_000, now: at(1_000) })).toMatchObject({ status: 'acquired' });
    expect(await acquireLease(journal, { lane: 'packages/b', holder: 'h2', ttlMs: 60_000, now: at(1_000) })).toMatchObject({ status: 'acquired' });
    const id = first.status === 'acquired' ? first.id : '';
    expect(await renewLease(journal, id, 120_000, at(30_000))).toMatchObject({ status: 'done', lease: { until: '2026-11-29T12:02:30.000Z' } });
    expect((await listLeases(journal, at(100_000))).leases.map((l) => l.lane)).toEqual(['packages/a']);
    expect(await releaseLease(journal, id, at(100_000))).toMatchObject({ status: 'done' });
    expect(await releaseLease(journal, id, at(100_000))).toEqual({ status: 'not-active', id });
    expect(await releaseLease(journal, 'nope', at(100_000))).toEqual({ status: 'unknown', id: 'nope' });
    // An expired lease frees its lane.
    expect(await acquireLease(journal, { lane: 'packages/b', holder: 'h3', ttlMs: 60_000, now: at(200_000) })).toMatchObject({ status: 'acquired' });
  });

  it('takes several lanes at once or none', async () => {
    await acquireLease(journal, { lane: 'b', holder: 'h1', ttlMs: 60_000, now: at(0) });
    const refused = await acquireLeases(journal, ['a', 'b', 'c'], { holder: 'h2', ttlMs: 60_000, now: at(0) });
    expect(refused).toMatchObject([{ status: 'refused', lane: 'b' }]);
    expect((await listLeases(journal, at(0))).leases.map((l) => l.lane)).toEqual(['b']);
    const all = await acquireLeases(journal, ['a', 'c'], { holder: 'h2', ttlMs: 60_000, now: at(0) });
    await releaseLeases(journal, all.map((r) => r.id), at(1));
    expect((await listLeases(journal, at(2))).leases.map((l) => l.lane)).toEqual(['b']);
  });

  it('never answers acquired for an event its readers would skip: an empty holder is refused before anything is written (red team 4 D2)', async () => {
    await expect(acquireLease(journal, { lane: 'src/a', holder: '', ttlMs: 60_000, now: at(0) })).rejects.toThrow(/^lease journal .*: refused to write an event its readers would skip \(acquire event, holder: /);
    expect((await readJournal(journal)).events).toEqual([]);
    expect(await acquireLease(journal, { lane: 'src/a', holder: 'bob', ttlMs: 60_000, now: at(0) })).toMatchObject({ status: 'acquired' });
  });

  it('counts an acquisition of several lanes whole or not at all, even when its write was cut short (red team 4 D5)', async () => {
    const lanes = Array.from({ length: 30 }, (_, i) => `packages/p${i}`);
    const taken = await acquireLeases(journal, lanes, { holder: 'alice', ttlMs: 60_000, now: at(0) });
    expect(taken.map((r) => r.status)).toEqual(lanes.map(() => 'acquired'));
    const whole = await readFile(journal);
    // As a full disk or a kill leaves it: ten lines whole, the eleventh torn.
    const cut = whole.subarray(0, whole.indexOf(10, whole.indexOf('packages/p10')) - 20);
    await writeFile(journal, cut);
    const read = await readJournal(journal);
    expect(read.events).toEqual([]);
    // Line 1 is the journal's header: waves gives a journal a generation before it writes to it.
    expect(read.corrupt.map((c) => [c.line, c.reason])).toEqual([...Array.from({ length: 10 }, (_, i) => [i + 2, 'partial']), [12, undefined]]);
    expect((await journalBackend(journal, at(1)).list()).warnings[0]).toBe('leases.jsonl line 2: one lane of an acquisition whose other lines did not all land (cut short), void');
    expect(await acquireLease(journal, { lane: 'packages/p3', holder: 'bob', ttlMs: 60_000, now: at(1) })).toMatchObject({ status: 'acquired' });
    // Whole, the same lines count.
    await writeFile(journal, whole);
    expect((await listLeases(journal, at(1))).leases).toHaveLength(30);
  });

  it('skips a torn last line and a garbage line, loses nothing else, and appends on a new line', async () => {
    await acquireLease(journal, { lane: 'a', holder: 'h1', ttlMs: 60_000, now: at(0) });
    await writeFile(journal, `${await readFile(journal, 'utf8')}this is not json\n{"v":1,"op":"acquire","id":"torn","la`);
    const read = await readJournal(journal);
    expect(read.corrupt.map((c) => c.line)).toEqual([3, 4]);
    expect(read.events).toHaveLength(1);
    await acquireLease(journal, { lane: 'b', holder: 'h1', ttlMs: 60_000, now: at(1) });
    const after = await readJournal(journal);
    expect(after.events.map((e) => e.op === 'acquire' && e.lane)).toEqual(['a', 'b']);
    expect(after.corrupt).toHaveLength(2);
  });

  it('never reads or appends through a journal an agent replaced by a FIFO or a link: one WavesError line, nothing written', async () => {
    await mkdir(path.dirname(journal), { recursive: true });
    await execa('mkfifo', [journal]);
    await expect(listLeases(journal, at(0))).rejects.toThrow(/^lease journal .*leases\.jsonl: is not a regular file \(a FIFO\)/);
    await expect(acquireLease(journal, { lane: 'a', holder: 'h1', ttlMs: 60_000, now: at(0) })).rejects.toThrow(/is not a regular file \(a FIFO\)/);
    await rm(journal);
    const victim = path.join(dir, 'victim');
    await writeFile(victim, 'precious\n');
    await symlink(victim, journal);
    await expect(acquireLease(journal, { lane: 'a', holder: 'h1', ttlMs: 60_000, now: at(0) })).rejects.toThrow(/is a symbolic link \(not followed\)/);
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
  });

  it('refuses the other spellings of a path inside a held lease, and never writes a lane that has no canonical spelling', async () => {
    await acquireLease(journal, { lane: 'packages/payments', holder: 'alice', ttlMs: 60_000, now: at(0) });
    for (const lane of ['packages//payments/src/stripe.ts', 'packages/./payments/src/refunds.ts', 'packages\\payments', './packages/payments/']) {
      expect(await acquireLease(journal, { lane, holder: 'bob', ttlMs: 60_000, now: at(1) }), lane).toMatchObject({ status: 'refused', heldLane: 'packages/payments' });
    }
    for (const lane of ['', '/', '../x', '/etc']) {
      await expect(acquireLease(journal, { lane, holder: 'bob', ttlMs: 60_000, now: at(1) }), JSON.stringify(lane)).rejects.toThrow(/^lane /);
    }
    expect((await readJournal(journal)).events).toHaveLength(1);
  });

  it('refuses a lane that differs from a held one only in its Unicode form, and reads a decomposed journal line as its composed lane (red team 4 D9)', async () => {
    expect(await acquireLease(journal, { lane: 'src/caf\u00e9', holder: 'alice', ttlMs: 60_000, now: at(0) })).toMatchObject({ status: 'acquired' });
    expect(await acquireLease(journal, { lane: 'src/cafe\u0301/menu.ts', holder: 'bob', ttlMs: 60_000, now: at(1) })).toMatchObject({ status: 'refused', holder: 'alice' });
    await writeFile(journal, `${await readFile(journal, 'utf8')}${JSON.stringify({ v: 1, op: 'acquire', id: 'l-nfd', lane: 'docs/re\u0301sume\u0301', holder: 'carol', at: T_ISO, ttlMs: 60_000 })}\n`);
    expect((await listLeases(journal, at(2))).leases.map((l) => l.lane)).toEqual(['src/caf\u00e9', 'docs/r\u00e9sum\u00e9']);
  });

  it('reports a journal line whose lane has no canonical spelling as corrupt, and lets a line dated in 2100 hold nothing', async () => {
    await mkdir(path.dirname(journal), { recursive: true });
    const line = (lane: string, at: string) => JSON.stringify({ v: 1, op: 'acquire', id: `l-${lane.length}`, lane, holder: 'mallory', at, ttlMs: 60_000 });
    await writeFile(journal, `${line('../outside', '2026-11-29T12:00:00.000Z')}\n${line('packages/payments', '2100-01-01T00:00:00.000Z')}\n`);
    const read = await readJournal(journal);
    expect(read.corrupt.map((c) => c.line)).toEqual([1]);
    expect((await listLeases(journal, at(0))).leases).toEqual([]);
    expect(await acquireLease(journal, { lane: 'packages/payments', holder: 'bob', ttlMs: 60_000, now: at(0) })).toMatchObject({ status: 'acquired' });
  });

  it('reports a line whose time to live is past 2^31−1 ms or whose date is no date as corrupt, and holds nothing for it', async () => {
    await mkdir(path.dirname(journal), { recursive: true });
    const lines = [
      { v: 1, op: 'acquire', id: 'l-huge', lane: 'src', holder: 'm', at: '2026-11-29T12:00:00.000Z', ttlMs: 9e15 },
      { v: 1, op: 'acquire', id: 'l-past', lane: 'src', holder: 'm', at: '-271821-04-20T00:00:00.000Z', ttlMs: 8.64e15 },
      { v: 1, op: 'acquire', id: 'l-nodate', lane: 'src', holder: 'm', at: 'soon', ttlMs: 60_000 },
      { v: 1, op: 'renew', id: 'l-ok', at: '2026-11-29T12:00:00.000Z', ttlMs: 2 ** 31 },
      { v: 1, op: 'acquire', id: 'l-ok', lane: 'src', holder: 'm', at: '2026-11-29T12:00:00.000Z', ttlMs: 2 ** 31 - 1 },
    ];
    await writeFile(journal, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const read = await readJournal(journal);
    expect(read.corrupt.map((c) => c.line)).toEqual([1, 2, 3, 4]);
    expect((await listLeases(journal, at(0))).leases.map((l) => l.id)).toEqual(['l-ok']);
  });

  it('dates nothing with a date that names no time zone, which each reader would read in its own; Z or an offset count (red team 4 D8)', async () => {
    await mkdir(path.dirname(journal), { recursive: true });
    const lines = [
      { v: 1, op: 'acquire', id: 'l-local', lane: 'src', holder: 'm', at: '2026-11-29T12:00:00', ttlMs: 3_600_000 },
      { v: 1, op: 'acquire', id: 'l-day', lane: 'lib', holder: 'm', at: '2026-11-29', ttlMs: 3_600_000 },
      { v: 1, op: 'acquire', id: 'l-offset', lane: 'docs', holder: 'm', at: '2026-11-29T13:00:00+01:00', ttlMs: 3_600_000 },
      { v: 1, op: 'renew', id: 'l-offset', at: '2026-11-29T12:30:00', ttlMs: 3_600_000 },
    ];
    await writeFile(journal, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const read = await readJournal(journal);
    expect(read.corrupt.map((c) => c.line)).toEqual([1, 2, 4]);
    expect((await listLeases(journal, at(0))).leases.map((l) => [l.id, l.until])).toEqual([['l-offset', '2026-11-29T13:00:00.000Z']]);
  });

  it('folds events no schema checked without throwing: an expiry no Date can hold makes no lease', () => {
    const events = [
      { v: 1, op: 'acquire', id: 'a', lane: 'src', holder: 'm', at: '2026-11-29T12:00:00.000Z', ttlMs: 9e15 },
      { v: 1, op: 'acquire', id: 'b', lane: 'docs', holder: 'm', at: '2026-11-29T12:00:00.000Z', ttlMs: 60_000 },
      { v: 1, op: 'renew', id: 'b', at: '2026-11-29T12:00:01.000Z', ttlMs: Number.POSITIVE_INFINITY },
    ] as LeaseEvent[];
    expect(() => foldLeases(events, T0)).not.toThrow();
    expect(foldLeases(events, T0).map((l) => [l.id, l.until])).toEqual([['b', '2026-11-29T12:01:00.000Z']]);
  });

  it('recovers a lock left by a killed process', async () => {
    await mkdir(path.dirname(journal), { recursive: true });
    await mkdir(`${journal}.lock`);
    const old = new Date(Date.now() - 60_000);
    await utimes(`${journal}.lock`, old, old);
    expect(await acquireLease(journal, { lane: 'a', holder: 'h1', ttlMs: 60_000, now: () => new Date() })).toMatchObject({ status: 'acquired' });
  });

  it('recovers a lock dated in the future, as one left by a process killed while the clock was ahead (red team 4 D10)', async () => {
    await mkdir(`${journal}.lock`, { recursive: true });
    const ahead = new Date(Date.now() + 600_000);
    await utimes(`${journal}.lock`, ahead, ahead);
    expect(await acquireLease(journal, { lane: 'a', holder: 'h1', ttlMs: 60_000, now: () => new Date() })).toMatchObject({ status: 'acquired' });
  });

  it('fails the operation of a lock holder stalled past the stale time with one WavesError line, never an uncaught stack', async () => {
    // Built package: the staller is a plain Node process.
    const staller = execa('node', [STALLER, journal], { reject: false, stdin: 'ignore' });
    await new Promise<void>((resolve) => staller.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve()));
    staller.kill('SIGSTOP');
    // Stopped, it cannot refresh its lock: this acquire waits until the lock is stale, then takes it over.
    expect(await acquireLease(journal, { lane: 'a', holder: 'h1', ttlMs: 60_000, now: () => new Date() })).toMatchObject({ status: 'acquired' });
    staller.kill('SIGCONT');
    const result = await staller;
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^WavesError: lease journal .*: its lock was taken over while this process was stalled/)]);
  }, 60_000);

  it('counts a line only where its writer found the end of the journal: a second writer from the same end is void, and told so', async () => {
    const event = (id: string, lane: string): LeaseEvent => ({ v: 1, op: 'acquire', id, lane, holder: id, at: new Date().toISOString(), ttlMs: 600_000 });
    await withJournalLock(journal, async (lock) => {
      const { end } = await readJournal(journal);
      // Two writers that read the same end (one of them stalled while the other took its lock over).
      const stale = { ...end };
      await appendEvents(journal, [event('first', 'packages/core')], end, lock);
      await expect(appendEvents(journal, [event('second', 'packages/core/src')], stale, lock)).rejects.toThrow(/its lock was taken over while this process was stalled/);
      // One that reads the journal now goes on after both lines.
      await appendEvents(journal, [event('third', 'docs')], (await readJournal(journal)).end, lock);
    });
    const read = await readJournal(journal);
    expect(read.events.map((e) => e.id)).toEqual(['first', 'third']);
    expect(read.corrupt).toEqual([{ line: 2, text: expect.stringContaining('"id":"second"'), reason: 'void' }]);
    expect((await listLeases(journal, () => new Date())).leases.map((l) => l.holder)).toEqual(['first', 'third']);
    expect((await journalBackend(journal, () => new Date()).list()).warnings).toEqual(['leases.jsonl line 2: written where the journal no longer ended, or for another generation of it — by a process whose lock was taken over (it was stalled), or by an older waves still running beside this one — void']);
    // Positions are bytes: a holder name of non-ASCII letters, and a torn line before, move nothing.
    await writeFile(journal, `${await readFile(journal, 'utf8')}{"v":1,"op":"acq`);
    await acquireLease(journal, { lane: 'lib', holder: 'zoë@höst', ttlMs: 600_000, now: () => new Date() });
    await acquireLease(journal, { lane: 'src', holder: 'h2', ttlMs: 600_000, now: () => new Date() });
    expect((await listLeases(journal, () => new Date())).leases.map((l) => l.holder)).toEqual(['first', 'third', 'zoë@höst', 'h2']);
  });

  /**
   * The late writer (lock-late-writer.mjs, taking packages/core) stopped once it says `line`, its
   * lock taken over by an acquire of `lane` past the stale time, then let go on: its outcome.
   */
  async function stallAndTakeOver(mode: 'checked' | 'unchecked' | 'after', line: string, lane: string) {
    const go = path.join(dir, 'go');
    const late = execa('node', [LATE_WRITER, journal, 'packages/core', go, mode], { reject: false, stdin: 'ignore' });
    await new Promise<void>((resolve) => late.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes(line) && resolve()));
    late.kill('SIGSTOP');
    expect(await acquireLease(journal, { lane, holder: 'awake', ttlMs: 600_000, now: () => new Date() })).toMatchObject({ status: 'acquired' });
    await writeFile(go, '');
    late.kill('SIGCONT');
    return late;
  }

  for (const mode of ['checked', 'unchecked'] as const) {
    it(`never gives two holders overlapping lanes when a holder stalled past the stale time resumes and writes (${mode === 'checked' ? 'asking whether it still holds the lock' : 'stopped after asking'})`, async () => {
      // It decided packages/core was free; stopped, its lock goes stale and is taken over for an overlapping lane.
      const result = await stallAndTakeOver(mode, 'decided', 'packages/core/src');
      expect(result.exitCode, result.stdout).toBe(1);
      expect(result.stderr.trim()).toMatch(/^WavesError: lease journal .*: its lock was taken over while this process was stalled/);
      expect((await listLeases(journal, () => new Date())).leases.map((l) => [l.holder, l.lane])).toEqual([['awake', 'packages/core/src']]);
    }, 60_000);
  }

  it('reports a lease it wrote as acquired, however long its operation takes to end once its lock was taken over (a slow flush)', async () => {
    const result = await stallAndTakeOver('after', 'appended', 'docs');
    // Its line counted (it was first): so does its answer — never a lease it was told it did not get.
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('acquired');
    expect((await listLeases(journal, () => new Date())).leases.map((l) => l.holder).sort()).toEqual(['awake', 'late']);
  }, 60_000);

  it('never starts two issues one import apart when two orchestrators take their leases at the same instant', async () => {
    const startAt = String(Date.now() + 1_500);
    const [a, b] = await Promise.all([
      execa('node', [IMPORT_RACER, journal, 'alice/resolve-1-20261129T120000000Z', 'src/a.ts', startAt], { reject: false }),
      execa('node', [IMPORT_RACER, journal, 'bob/resolve-2-20261129T120000000Z', 'src/b.ts', startAt], { reject: false }),
    ]);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(b.exitCode, b.stderr).toBe(0);
    const results = [JSON.parse(a.stdout), JSON.parse(b.stdout)];
    expect(results.map((r) => r.status).sort()).toEqual(['acquired', 'refused']);
    const refused = results.find((r) => r.status === 'refused');
    expect(refused).toMatchObject({ reason: 'import', via: 'src/a.ts imports src/b.ts' });
    expect((await listLeases(journal, () => new Date())).leases).toHaveLength(1);
  });

  it('never lets two holders own overlapping scopes at once, with 8 processes racing', async () => {
    // Built package: the racers are plain Node processes.
    const lanes = ['packages/a', 'packages/a/src/x.ts', 'packages/a/src', 'packages/b'];
    const racers = Array.from({ length: 8 }, (_, i) => execa('node', [RACER, journal, `holder-${i}`, '25', ...lanes.slice(i % 2), ...lanes.slice(0, i % 2)], { reject: false }));
    const results = await Promise.all(racers);
    for (const r of results) expect(r.exitCode, r.stderr).toBe(0);
    const { events, corrupt } = await readJournal(journal);
    expect(corrupt).toEqual([]);
    for (const line of (await readFile(journal, 'utf8')).trim().split('\n').slice(1)) expect(LeaseEventSchema.safeParse(JSON.parse(line)).success).toBe(true);
    // Replay the journal: after every event, no two live leases of different holders overlap.
    const live = new Map<string, { lane: string; holder: string }>();
    let acquired = 0;
    for (const event of events) {
      if (event.op === 'acquire') {
        for (const other of live.values()) {
          if (other.holder !== event.holder) expect(lanesOverlap(other.lane, event.lane), `${event.holder} took ${event.lane} while ${other.holder} held ${other.lane}`).toBe(false);
        }
        live.set(event.id, { lane: event.lane, holder: event.holder });
        acquired++;
      } else if (event.op === 'release') live.delete(event.id);
    }
    expect(acquired).toBeGreaterThan(8);
    expect(live.size).toBe(0);
  }, 120_000);
});

describe('the lease journal compacted (red team 4 D3)', () => {
  const T = (ms: number) => new Date(T0 + ms).toISOString();
  const line = (event: Record<string, unknown>) => `${JSON.stringify(event)}\n`;
  /** Ended leases, written as another waves would have, to make the journal `bytes` long or more. */
  const history = (bytes: number) => {
    const chunk: string[] = [];
    let size = 0;
    for (let i = 0; size < bytes; i++) {
      const text = line({ v: 1, op: 'acquire', id: `l-old-${i}`, lane: `packages/p${i % 50}`, holder: 'ci@build/resolve-1-20261129T120000000Z', at: T(-3_600_000), ttlMs: 60_000 }) + line({ v: 1, op: 'release', id: `l-old-${i}`, at: T(-3_000_000) });
      chunk.push(text);
      size += text.length;
    }
    return chunk.join('');
  };

  it('keeps exactly the live leases, with their holders, dates and expiries — one renewed past twice the longest time to live too — and the backend still holds them', async () => {
    const max = 2 ** 31 - 1;
    await mkdir(path.dirname(journal), { recursive: true });
    // A lease renewed for 60 days, before any other line: acquired 60 days ago, renewed before each expiry.
    const events = [line({ v: 1, op: 'acquire', id: 'l-long', lane: 'docs', holder: 'keeper', at: T(-60 * 86_400_000), ttlMs: max })];
    for (let at = -60 * 86_400_000 + 86_400_000; at <= -1_000; at += 86_400_000) events.push(line({ v: 1, op: 'renew', id: 'l-long', at: T(at), ttlMs: max }));
    await writeFile(journal, events.join('') + history(50_000));
    const original = (await stat(journal)).size;
    await link(journal, path.join(dir, 'first-journal'));
    const backend = journalBackend(journal, at(0));
    const a = await acquireLease(journal, { lane: 'packages/a', holder: 'h1', ttlMs: 60_000, now: at(0) });
    const b = await acquireLease(journal, { lane: 'packages/b', holder: 'h2', ttlMs: 60_000, now: at(0) });
    await renewLease(journal, (a as { id: string }).id, 600_000, at(10_000));
    await releaseLease(journal, (b as { id: string }).id, at(20_000));
    const before = (await listLeases(journal, at(30_000))).leases;
    expect(before.map((l) => l.id)).toEqual(['l-long', (a as { id: string }).id]);
    const compacted = await backend.gc();
    expect(compacted.compacted).toMatchObject({ kept: 2 });
    // The first change gave the journal a generation: compacted then, and again by gc.
    expect(compacted.compacted!.after).toBeLessThan(original / 50);
    const text = await readFile(journal, 'utf8');
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ v: 1, op: 'journal', gen: expect.stringMatching(/^[0-9a-f]{16}$/) });
    for (const now of [30_000, 1_000_000, 40 * 86_400_000]) expect((await listLeases(journal, at(now))).leases, String(now)).toEqual((await listLeasesOf(before, now)));
    expect((await readJournal(journal)).corrupt).toEqual([]);
    // A supervisor holding these leases sees the journal, not another file; they renew and refuse as before.
    expect(backend.replaced!()).toBeNull();
    expect(await renewLease(journal, (a as { id: string }).id, 600_000, at(40_000))).toMatchObject({ status: 'done' });
    expect(await acquireLease(journal, { lane: 'packages/a/x.ts', holder: 'h2', ttlMs: 60_000, now: at(40_000) })).toMatchObject({ status: 'refused', holder: 'h1' });
    // Any other file still is another file (the first journal kept alive by a link: its inode is not reused).
    await rm(journal);
    await writeFile(journal, '');
    expect(backend.replaced!()).toMatch(/was replaced by another file/);

    /** The leases of `before` still live `now` ms after T0 (as the fold would keep them). */
    async function listLeasesOf(leases: typeof before, now: number) {
      return leases.filter((l) => Date.parse(l.until) > T0 + now);
    }
  });

  it('compacts a journal past 8 MB as a change takes the lock, and takes every lease as before', async () => {
    await mkdir(path.dirname(journal), { recursive: true });
    await writeFile(journal, history(8 * 1024 * 1024));
    const live = await acquireLease(journal, { lane: 'packages/a', holder: 'h1', ttlMs: 60_000, now: at(0) });
    expect(live).toMatchObject({ status: 'acquired' });
    const { size } = await stat(journal);
    expect(size).toBeLessThan(4_096);
    expect(await acquireLease(journal, { lane: 'packages/a/src', holder: 'h2', ttlMs: 60_000, now: at(1) })).toMatchObject({ status: 'refused', holder: 'h1' });
    expect((await listLeases(journal, at(2))).leases.map((l) => l.holder)).toEqual(['h1']);
    expect((await readdir(path.dirname(journal))).filter((name) => name.endsWith('.next'))).toEqual([]);
  });

  it('voids the line of a writer stalled past the stale time whose lock a compaction took over, and fails it with one line', async () => {
    await mkdir(path.dirname(journal), { recursive: true });
    await writeFile(journal, history(20_000));
    const go = path.join(dir, 'go');
    const late = execa('node', [LATE_WRITER, journal, 'packages/core', go, 'unchecked'], { reject: false, stdin: 'ignore' });
    await new Promise<void>((resolve) => late.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('decided') && resolve()));
    late.kill('SIGSTOP');
    const compacted = await compactLeaseJournal(journal, () => new Date());
    expect(compacted.after).toBeLessThan(compacted.before);
    expect(await acquireLease(journal, { lane: 'packages/core/src', holder: 'awake', ttlMs: 600_000, now: () => new Date() })).toMatchObject({ status: 'acquired' });
    await writeFile(go, '');
    late.kill('SIGCONT');
    const result = await late;
    expect(result.exitCode, result.stdout).toBe(1);
    expect(result.stderr.trim()).toMatch(/^WavesError: lease journal .*: its lock was taken over while this process was stalled/);
    expect((await listLeases(journal, () => new Date())).leases.map((l) => [l.holder, l.lane])).toEqual([['awake', 'packages/core/src']]);
  }, 60_000);

  it('refuses, before writing it, a change that would take the journal past 64 MB though compacted — never one that makes the journal unreadable', async () => {
    await mkdir(path.dirname(journal), { recursive: true });
    // Live leases only, near the bound: compaction cannot shrink it.
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; ; i++) {
      const text = line({ v: 1, op: 'acquire', id: `l-${i}`, lane: `p/${i}/${'x'.repeat(400)}`, holder: 'h'.repeat(200), at: T(0), ttlMs: 3_600_000 });
      if (size + text.length > 64 * 1024 * 1024 - 100) break;
      lines.push(text);
      size += text.length;
    }
    // Padded to 50 bytes short of the bound.
    const pad = line({ v: 1, op: 'release', id: 'l-pad-', at: T(0) });
    lines.push(pad.replace('l-pad-', `l-pad-${'0'.repeat(64 * 1024 * 1024 - 50 - size - pad.length)}`));
    await writeFile(journal, lines.join(''));
    expect((await stat(journal)).size).toBe(64 * 1024 * 1024 - 50);
    await expect(acquireLease(journal, { lane: 'q', holder: 'h'.repeat(200), ttlMs: 60_000, now: at(1) })).rejects.toThrow(/^lease journal .*: this change would take it past 64 MB, the most waves reads, though it was compacted to its live leases; nothing was written \(release the leases no one needs/);
    expect((await stat(journal)).size).toBeLessThanOrEqual(64 * 1024 * 1024);
    expect((await listLeases(journal, at(2))).leases).toHaveLength(lines.length - 1);
  }, 120_000);

  it("voids a stalled writer's line however it lands: in the old file after the seal, or in the new one at its very place", async () => {
    await acquireLease(journal, { lane: 'packages/core', holder: 'first', ttlMs: 600_000, now: () => new Date() });
    const event = (id: string, lane: string): LeaseEvent => ({ v: 1, op: 'acquire', id, lane, holder: id, at: new Date().toISOString(), ttlMs: 600_000 });
    await withJournalLock(journal, async (lock) => {
      // Read before the compaction (it stalled), written after: its end is in the old file.
      const stale = (await readJournal(journal)).end;
      const compaction = await compactJournal(journal, await readJournal(journal), new Date(), lock, { force: true });
      await expect(appendEvents(journal, [event('late', 'docs')], { ...stale }, lock)).rejects.toThrow(/its lock was taken over/);
      // Even where its pos is the new file's end: the line names the old generation.
      await expect(appendEvents(journal, [event('later', 'lib')], { ...stale, offset: (await stat(journal)).size }, lock)).rejects.toThrow(/its lock was taken over/);
      expect(compaction.kept).toBe(1);
    });
    const read = await readJournal(journal);
    expect(read.events.map((e) => e.id)).toEqual([expect.stringMatching(/^l-/)]);
    expect(read.corrupt.map((c) => c.reason)).toEqual(['void', 'void']);
    expect((await listLeases(journal, () => new Date())).leases.map((l) => l.holder)).toEqual(['first']);
    expect(await acquireLease(journal, { lane: 'docs', holder: 'h2', ttlMs: 600_000, now: () => new Date() })).toMatchObject({ status: 'acquired' });
  });

  it('renames nothing when a stalled writer appended at the end the compaction read: its lease counts, the compaction fails', async () => {
    await acquireLease(journal, { lane: 'packages/core', holder: 'first', ttlMs: 600_000, now: () => new Date() });
    const before = await readFile(journal, 'utf8');
    await withJournalLock(journal, async (lock) => {
      const read = await readJournal(journal);
      await appendEvents(journal, [{ v: 1, op: 'acquire', id: 'l-stalled', lane: 'docs', holder: 'stalled', at: new Date().toISOString(), ttlMs: 600_000 }], { ...read.end }, lock);
      await expect(compactJournal(journal, read, new Date(), lock, { force: true })).rejects.toThrow(/its lock was taken over/);
    });
    expect((await readFile(journal, 'utf8')).startsWith(before)).toBe(true);
    expect((await listLeases(journal, () => new Date())).leases.map((l) => l.holder)).toEqual(['first', 'stalled']);
    expect((await readdir(path.dirname(journal))).filter((name) => name.endsWith('.next'))).toEqual([]);
  });

  it('finishes a compaction stalled between its seal and its rename, and compacts anew one whose new file is gone; lines after a seal are void', async () => {
    await acquireLease(journal, { lane: 'packages/core', holder: 'first', ttlMs: 600_000, now: () => new Date() });
    const seal = async (next: string, successor: string | null) => {
      const { end } = await readJournal(journal);
      if (successor !== null) await writeFile(successorOf(journal, next), successor);
      await writeFile(journal, `${await readFile(journal, 'utf8')}${line({ v: 1, op: 'sealed', next, at: new Date().toISOString(), pos: end.offset, ...(end.gen ? { gen: end.gen } : {}) })}${line({ v: 1, op: 'acquire', id: 'l-after', lane: 'docs', holder: 'late', at: new Date().toISOString(), ttlMs: 600_000 })}`);
    };
    // The new file a compaction wrote: the header and first's lease, as it would have.
    const lease = (await listLeases(journal, () => new Date())).leases[0]!;
    const header = line({ v: 1, op: 'journal', gen: 'aaaaaaaaaaaaaaaa' });
    await seal('aaaaaaaaaaaaaaaa', header + line({ v: 1, op: 'acquire', id: lease.id, lane: lease.lane, holder: lease.holder, at: lease.since, ttlMs: 600_000, pos: header.length, gen: 'aaaaaaaaaaaaaaaa' }));
    expect((await listLeases(journal, () => new Date())).leases.map((l) => l.holder)).toEqual(['first']);
    expect(await acquireLease(journal, { lane: 'lib', holder: 'h2', ttlMs: 600_000, now: () => new Date() })).toMatchObject({ status: 'acquired' });
    expect((await readFile(journal, 'utf8')).startsWith(header)).toBe(true);
    expect((await listLeases(journal, () => new Date())).leases.map((l) => l.holder)).toEqual(['first', 'h2']);
    // Sealed again, its new file lost: the next change compacts the sealed file itself.
    await seal('bbbbbbbbbbbbbbbb', null);
    expect(await acquireLease(journal, { lane: 'src', holder: 'h3', ttlMs: 600_000, now: () => new Date() })).toMatchObject({ status: 'acquired' });
    expect((await listLeases(journal, () => new Date())).leases.map((l) => l.holder)).toEqual(['first', 'h2', 'h3']);
    expect((await readJournal(journal)).corrupt).toEqual([]);
    expect((await readdir(path.dirname(journal))).filter((name) => name.endsWith('.next'))).toEqual([]);
  });

  it('gives a journal a generation before it writes to it, so every line it writes names one', async () => {
    await mkdir(path.dirname(journal), { recursive: true });
    await writeFile(journal, line({ v: 1, op: 'acquire', id: 'l-legacy', lane: 'docs', holder: 'old', at: T(0), ttlMs: 600_000, pos: 0 }));
    expect(await acquireLease(journal, { lane: 'src', holder: 'new', ttlMs: 600_000, now: at(1) })).toMatchObject({ status: 'acquired' });
    const lines = (await readFile(journal, 'utf8')).trim().split('\n').map((text) => JSON.parse(text) as { op: string; gen?: string });
    expect(lines[0]).toMatchObject({ op: 'journal', gen: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(lines.slice(1).map((l) => [l.op, l.gen])).toEqual([['acquire', lines[0]!.gen], ['acquire', lines[0]!.gen]]);
    expect((await listLeases(journal, at(2))).leases.map((l) => l.holder)).toEqual(['old', 'new']);
  });

  it("counts an older waves' line, which names no generation, where that waves found the end — its lease holds, and no one else is given the lane (red team F5)", async () => {
    await acquireLease(journal, { lane: 'packages/b', holder: 'new', ttlMs: 600_000, now: at(0) });
    await compactLeaseJournal(journal, at(1));
    // What a waves from before generations appends to a compacted journal: `pos`, no `gen`.
    const end = (await stat(journal)).size;
    await writeFile(journal, `${await readFile(journal, 'utf8')}${line({ v: 1, op: 'acquire', id: 'l-old-build', lane: 'src/a', holder: 'alice', at: T(1), ttlMs: 600_000, pos: end })}`);
    expect((await listLeases(journal, at(2))).leases.map((l) => [l.holder, l.lane])).toEqual([['new', 'packages/b'], ['alice', 'src/a']]);
    expect(await acquireLease(journal, { lane: 'src/a/x.ts', holder: 'bob', ttlMs: 600_000, now: at(2) })).toMatchObject({ status: 'refused', holder: 'alice' });
    // Its renewal, written where it found the end, counts too; one written elsewhere is void, and said so.
    const again = (await stat(journal)).size;
    await writeFile(journal, `${await readFile(journal, 'utf8')}${line({ v: 1, op: 'renew', id: 'l-old-build', at: T(3), ttlMs: 900_000, pos: again })}${line({ v: 1, op: 'acquire', id: 'l-stray', lane: 'lib', holder: 'carol', at: T(3), ttlMs: 600_000, pos: 7 })}`);
    expect((await listLeases(journal, at(4))).leases.find((l) => l.holder === 'alice')?.until).toBe(T(3 + 900_000));
    expect((await journalBackend(journal, at(4)).list()).warnings).toEqual([expect.stringMatching(/^leases\.jsonl line \d+: written where the journal no longer ended, .* or by an older waves still running beside this one — void$/)]);
  });

  it('refuses, with one line and nothing written, a journal whose header waves did not write: another key, or a line past 256 bytes (red team F6)', async () => {
    await mkdir(path.dirname(journal), { recursive: true });
    for (const header of [{ v: 1, op: 'journal', gen: '0123456789abcdef', note: 'x'.repeat(300) }, { v: 1, op: 'journal', gen: '0123456789abcdef', by: 'tool' }]) {
      const text = `${line(header)}${line({ v: 1, op: 'acquire', id: 'l-1', lane: 'src/a', holder: 'alice', at: T(0), ttlMs: 600_000, pos: line(header).length, gen: '0123456789abcdef' })}`;
      await writeFile(journal, text);
      await expect(acquireLease(journal, { lane: 'src/b', holder: 'bob', ttlMs: 600_000, now: at(1) })).rejects.toThrow(/^lease journal .*leases\.jsonl: its first line is a journal header waves did not write \(other keys, or longer than 256 bytes\), so no lease in it can be judged; stop every waves run, then move it aside/);
      await expect(compactLeaseJournal(journal, at(1))).rejects.toThrow(/its first line is a journal header waves did not write/);
      expect(await readFile(journal, 'utf8')).toBe(text);
    }
  });

  it('refuses a header with a byte-order mark before it or a NUL after it, rather than reading the journal as having none (red team I)', async () => {
    await mkdir(path.dirname(journal), { recursive: true });
    const header = line({ v: 1, op: 'journal', gen: '0123456789abcdef' }).trimEnd();
    for (const first of [`\uFEFF${header}`, `${header}\u0000`]) {
      const text = `${first}\n${line({ v: 1, op: 'acquire', id: 'l-1', lane: 'src/a', holder: 'alice', at: T(0), ttlMs: 600_000, pos: Buffer.byteLength(first) + 1, gen: '0123456789abcdef' })}`;
      await writeFile(journal, text);
      await expect(acquireLease(journal, { lane: 'src/b', holder: 'bob', ttlMs: 600_000, now: at(1) })).rejects.toThrow(/^lease journal .*leases\.jsonl: its first line is not JSON \(a journal header waves did not write\?\)/);
      expect(await readFile(journal, 'utf8')).toBe(text);
    }
  });
});
