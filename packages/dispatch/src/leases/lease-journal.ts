/**
 * The lease journal: an append-only JSONL file, one event a line (`acquire`, `renew`,
 * `release`), shared by every orchestrator on the machine. Reading folds the events (in the
 * planner, purely); every change happens under a cross-process lock — proper-lockfile's atomic
 * `mkdir` lock, which a killed holder leaves stale and the next taker recovers — and is appended
 * with fsync. A torn or corrupt line is reported and skipped; nothing else is lost, and the next
 * append starts on a line of its own.
 *
 * A lock taken over from a holder stalled past the stale time (SIGSTOP, a suspended laptop) is
 * held by two processes once the stalled one resumes; no timer can stop what it was about to
 * write. So every line records where its writer found the journal's end (`pos`), and counts only
 * there: the first of the two to append wins, the other's line lands after it and is void, and
 * that writer, reading its line back, fails with one line — it never reports a lease the journal
 * does not give it, nor gives one it reported failed.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, writeFile } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { decideLanes, refusalOf, type AcquireResult, type ChangeResult } from './lease-backend.js';
import { canonicalLane, foldLeases, InputError, LeaseEventSchema, MAX_LEASE_TTL_MS, readRegularBytes, WavesError, type Lease, type LeaseEvent, type LeaseRules } from '@waves/planner';

export const DEFAULT_JOURNAL = '.waves/leases.jsonl';

export interface CorruptLine {
  line: number;
  text: string;
  /** `void`: a well-formed event written after its writer lost the lock (found elsewhere than its `pos`). */
  reason?: 'void';
}

export interface JournalRead {
  events: LeaseEvent[];
  corrupt: CorruptLine[];
  /** Where the next line goes: the journal's size in bytes, and whether its last line is torn (no line feed). */
  end: JournalEnd;
}

/** The end of the journal as read under the lock: the next line begins at `offset`, after a line feed when `torn`. */
export interface JournalEnd {
  offset: number;
  torn: boolean;
}

/** `user@host`: who this orchestrator is in the journal unless the config says otherwise. */
export function defaultHolder(): string {
  let user = 'someone';
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER ?? 'someone';
  }
  return `${user}@${hostname()}`;
}

/**
 * The longest duration waves takes anywhere (a timeout, a lease's time to live, a verification's
 * limit): 2^31−1 ms, about 24.8 days. A Node timer given more fires at once (a `--timeout 1000h`
 * timed every agent out instantly, an `8000h` lease renewed itself in a loop), and the journal
 * refuses a longer time to live (`MAX_LEASE_TTL_MS`).
 */
export const MAX_DURATION_MS = MAX_LEASE_TTL_MS;

/** `30m`, `1h`, `2d`, `500ms` → milliseconds; null when it is not a duration, or one longer than `MAX_DURATION_MS`. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return null;
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
  const value = Number(match[1]) * unit;
  return value > 0 && value <= MAX_DURATION_MS ? value : null;
}

/** Why a text is not a duration waves takes (for a message after the flag or key), or null when it is one. */
export function durationProblem(text: string): string | null {
  if (parseDuration(text) !== null) return null;
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (match && Number(match[1]) > 0) return `longer than 2^31-1 ms (24.8 days), the longest a timer can wait, got ${JSON.stringify(text)}`;
  return `expected a duration such as 30m, 2h or 500ms (at most 24.8 days), got ${JSON.stringify(text)}`;
}

/**
 * The most a journal may hold: about 300 000 events, far more than any set of orchestrators writes
 * between two clean-ups. NOTE: the bound is what a journal replaced by something huge costs.
 */
export const MAX_JOURNAL_BYTES = 64 * 1024 * 1024;

/** What is wrong with a journal that is there but cannot be a journal: one line naming it (exit 2). */
function journalError(file: string, reason: string): WavesError {
  return new InputError(`lease journal ${file}: ${reason}; waves reads and appends only a regular file there (remove it, or fix leases.journal)`);
}

/**
 * The journal's events; none when it does not exist. A journal an agent replaced by a FIFO, a
 * device, a link or something huge is refused with one line (never followed, never a hang).
 */
export async function readJournal(file: string): Promise<JournalRead> {
  const read = await readRegularBytes(file, { maxBytes: MAX_JOURNAL_BYTES });
  if (!read.ok) {
    if (read.kind === 'missing') return { events: [], corrupt: [], end: { offset: 0, torn: false } };
    throw journalError(file, read.reason);
  }
  const bytes = Buffer.from(read.content.buffer, read.content.byteOffset, read.content.byteLength);
  const events: LeaseEvent[] = [];
  const corrupt: CorruptLine[] = [];
  // Line by line over the bytes: a line's offset is where its first byte is, whatever its text holds.
  let start = 0;
  for (let number = 1; start < bytes.length; number++) {
    const feed = bytes.indexOf(10, start);
    const stop = feed < 0 ? bytes.length : feed;
    const line = bytes.toString('utf8', start, stop);
    if (line.trim() !== '') {
      let parsed: ReturnType<typeof LeaseEventSchema.safeParse> | null = null;
      try {
        parsed = LeaseEventSchema.safeParse(JSON.parse(line));
      } catch {
        parsed = null;
      }
      if (!parsed?.success) corrupt.push({ line: number, text: line });
      else if (parsed.data.pos !== undefined && parsed.data.pos !== start) corrupt.push({ line: number, text: line, reason: 'void' });
      else events.push(parsed.data);
    }
    start = stop + 1;
  }
  return { events, corrupt, end: { offset: bytes.length, torn: bytes.length > 0 && bytes[bytes.length - 1] !== 10 } };
}

/** The journal's lock while `fn` holds it. */
export interface JournalLock {
  /** Throws the `WavesError` of a lost lock: once another process took it over, nothing may be written. */
  assertHeld(): void;
  /** The `WavesError` of a lost lock (what a void line fails with). */
  lostError(): WavesError;
  /** Called by `appendEvents` as it starts writing: from then on, the operation's answer is the journal's. */
  writing(): void;
}

/** How long an operation whose lock was taken over may still take to finish what it had written (and say whether it counted). */
const SETTLE_MS = 2_000;

/** A lock not refreshed for this long is taken to be left by a dead process, and taken over. */
const STALE_MS = 5_000;

/**
 * Runs `fn` holding the journal's lock (retrying for a few seconds when another process holds it).
 * A holder stalled past the stale time (SIGSTOP, a suspended laptop, a blocked event loop) finds
 * its lock taken over when it resumes: proper-lockfile reports that from a timer, and its default
 * is to throw there — an uncaught crash. Here the operation fails instead, at once, with one
 * `WavesError`, and `fn` can write nothing more (`assertHeld` before every append).
 */
export async function withJournalLock<T>(file: string, fn: (lock: JournalLock) => Promise<T>): Promise<T> {
  await mkdir(path.dirname(file), { recursive: true });
  // waves' own directory is local state: never something to commit.
  if (path.basename(path.dirname(file)) === '.waves') await writeFile(path.join(path.dirname(file), '.gitignore'), '*\n', { flag: 'wx' }).catch(() => undefined);
  let lost: WavesError | null = null;
  const lostError = (why: string) =>
    new WavesError(`lease journal ${file}: its lock was taken over while this process was stalled for more than ${STALE_MS / 1000} s (${why}); nothing it was doing counts, run it again`);
  let reportLost: (error: WavesError) => void = () => undefined;
  const whenLost = new Promise<never>((_resolve, reject) => {
    reportLost = reject;
  });
  whenLost.catch(() => undefined); // observed through the race below, or never
  const lockPath = `${file}.lock`;
  await refuseForeignLock(lockPath, 'the lease journal');
  const release = await takeLock(lockPath, 'the lease journal', () => lockfile.lock(file, {
    realpath: false,
    stale: STALE_MS,
    update: 1_000,
    retries: { retries: 200, minTimeout: 5, maxTimeout: 50, factor: 1.5, randomize: true },
    onCompromised: (error: Error) => {
      lost = lostError(error.message);
      reportLost(lost);
    },
  }));
  let wrote = false;
  const lock: JournalLock = {
    assertHeld() {
      if (lost) throw lost;
    },
    lostError: () => lost ?? lostError('another process wrote the journal meanwhile'),
    writing() {
      wrote = true;
    },
  };
  const work = fn(lock);
  try {
    return await Promise.race([work, whenLost]);
  } catch (error) {
    if (error !== lost) throw error;
    // Lost while working: what it had begun to append may count (a line at its `pos`), and then so
    // must its answer — a lease it was given and not told of would block its lane. Once it writes,
    // it is waited for however long its disk takes (its appends read their lines back and say);
    // one that has not begun to write has a moment to, and fails if it does not.
    if (!wrote) {
      const settled = await Promise.race([work.then((value) => ({ value }), () => null), new Promise<null>((resolve) => setTimeout(() => resolve(null), SETTLE_MS).unref())]);
      if (settled) return settled.value;
      if (!wrote) throw error;
    }
    return await work;
  } finally {
    // A lost lock belongs to another process now: removing it would free the journal for a third.
    if (!lost) {
      await release().catch((error: unknown) => {
        throw new InputError(`${lockPath}, the lock of the lease journal, could not be removed (${codeOrMessage(error)}): what was written stands; remove it (rm -r ${lockPath}) if no waves command is running`);
      });
    }
  }
}

const codeOrMessage = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message.split('\n')[0];

/**
 * Refuses at once, with one line naming it and what to do, a lock path that no waves made: waves'
 * locks (proper-lockfile's) are empty folders, so a file, a FIFO, a link or a folder with entries
 * there was planted (by an agent in the shared work tree…) — the library would wait on it, or fail
 * to remove it when it is old (`ENOTEMPTY … rmdir`).
 */
export async function refuseForeignLock(lockPath: string, what: string): Promise<void> {
  const info = await lstat(lockPath).catch(() => null);
  if (info === null) return;
  const remove = `remove it (rm -r ${lockPath}) if no waves command is running, and run again`;
  if (!info.isDirectory()) {
    const kind = info.isSymbolicLink() ? 'a symbolic link' : info.isFIFO() ? 'a FIFO' : info.isFile() ? 'a file' : 'a socket or device';
    throw new InputError(`${lockPath}, the lock of ${what}, is ${kind}, not a lock waves made: ${remove}`);
  }
  const entries = await readdir(lockPath).catch(() => [] as string[]);
  if (entries.length > 0) throw new InputError(`${lockPath}, the lock of ${what}, is a folder with entries in it (${entries.slice(0, 3).join(', ')}), not a lock waves made: ${remove}`);
}

/** Takes a lock through `take`; any failure is one line naming the lock and what to do (exit 2). */
export async function takeLock<T>(lockPath: string, what: string, take: () => Promise<T>): Promise<T> {
  try {
    return await take();
  } catch (error) {
    if (error instanceof WavesError) throw error;
    // Planted meanwhile, or old and not removable: say what it is.
    await refuseForeignLock(lockPath, what);
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new InputError(`${lockPath}, the lock of ${what}, is held by another process and was not freed in time; if no waves command is running, remove it (rm -r ${lockPath}) and run again`);
    }
    throw new InputError(`${lockPath}, the lock of ${what}, cannot be taken (${codeOrMessage(error)}); remove it (rm -r ${lockPath}) if no waves command is running, and run again`);
  }
}

const APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Appends events, in one write, where the journal ended when it was read under the lock (`end`,
 * advanced past them), each line marked with its offset (`pos`), and flushes them to disk. Then
 * reads them back: another process that took the lock over may have appended first, and these
 * lines landed after its — void; then it throws the lock's lost error and they count for nothing.
 */
export async function appendEvents(file: string, events: readonly LeaseEvent[], end: JournalEnd, lock: JournalLock): Promise<void> {
  lock.assertHeld();
  let offset = end.offset + (end.torn ? 1 : 0);
  const lines = events.map((event) => {
    const line = `${JSON.stringify(writable(file, { ...event, pos: offset }))}\n`;
    offset += Buffer.byteLength(line);
    return line;
  });
  lock.writing();
  const text = `${end.torn ? '\n' : ''}${lines.join('')}`;
  const bytes = Buffer.from(text);
  const handle = await openForAppend(file);
  try {
    await handle.appendFile(bytes);
    await handle.sync();
    const back = Buffer.alloc(bytes.length);
    const { bytesRead } = await handle.read(back, 0, bytes.length, end.offset);
    if (bytesRead !== bytes.length || !back.equals(bytes)) throw lock.lostError();
  } finally {
    await handle.close();
  }
  end.offset += bytes.length;
  end.torn = false;
}

/**
 * The event as its readers will read it, or an `InputError` before anything is written: a line
 * they skip (an empty holder…) holds nothing, and must never be answered `acquired`.
 */
function writable(file: string, event: LeaseEvent): LeaseEvent {
  const parsed = LeaseEventSchema.safeParse(event);
  if (parsed.success) return event;
  const issue = parsed.error.issues[0];
  const why = issue ? `${event.op} event, ${issue.path.join('.') || 'event'}: ${issue.message}` : `${event.op} event`;
  throw new InputError(`lease journal ${file}: refused to write an event its readers would skip (${why})`);
}

/** The journal opened for appending: never through a link (an agent's link to ~/.bashrc would get the event), never blocking on a FIFO, a regular file only. */
async function openForAppend(file: string) {
  const handle = await open(file, APPEND_FLAGS, 0o644).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP' || error.code === 'EMLINK') throw journalError(file, 'is a symbolic link (not followed)');
    if (error.code === 'ENXIO') throw journalError(file, 'is not a regular file (a socket)');
    throw error;
  });
  const info = await handle.stat();
  if (!info.isFile()) {
    await handle.close();
    throw journalError(file, `is not a regular file (${info.isFIFO() ? 'a FIFO' : info.isDirectory() ? 'a directory' : 'a socket or device'})`);
  }
  return handle;
}

export type { AcquireResult, ChangeResult } from './lease-backend.js';
export { refusalOf } from './lease-backend.js';

export function newLeaseId(): string {
  return `l-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

export interface LeaseRequest {
  lane: string;
  holder: string;
  ttlMs: number;
  now: () => Date;
  /**
   * The plan's rule beside the paths (its graph, tree, contention depth and serial globs): decided
   * inside the journal's lock, so two orchestrators planning at the same instant cannot take two
   * lanes one import apart. Absent: paths only.
   */
  rules?: LeaseRules;
}

/**
 * Takes several lanes at once, or none: all are acquired, or the first refusal is returned, by
 * the one lease rule (decide-lease.ts) applied inside the journal's lock. Every lane is
 * canonicalised first (an `InputError` for one that has no canonical spelling, before the journal
 * is touched): the journal only ever holds canonical lanes.
 */
export async function acquireLeases(file: string, lanes: readonly string[], request: Omit<LeaseRequest, 'lane'>): Promise<AcquireResult[]> {
  const canonical = lanes.map(canonicalLane);
  return withJournalLock(file, async (lock) => {
    const { events, end } = await readJournal(file);
    const now = request.now();
    const active = foldLeases(events, now.getTime());
    const verdict = decideLanes(active, canonical, request.holder, request.rules);
    if (verdict.status === 'refused') return [refusalOf(verdict)];
    // All the lanes in one write: they count together, or none does.
    const taken: LeaseEvent[] = canonical.map((lane) => ({ v: 1, op: 'acquire', id: newLeaseId(), lane, holder: request.holder, at: now.toISOString(), ttlMs: request.ttlMs }));
    await appendEvents(file, taken, end, lock);
    return taken.map((event) => ({ status: 'acquired' as const, id: event.id, lane: (event as { lane: string }).lane, holder: request.holder, until: new Date(now.getTime() + request.ttlMs).toISOString() }));
  });
}

export async function acquireLease(file: string, request: LeaseRequest): Promise<AcquireResult> {
  const [result] = await acquireLeases(file, [request.lane], request);
  return result!;
}


/** Releases a lease; releasing one that already ended is harmless. */
export async function releaseLease(file: string, id: string, now: () => Date): Promise<ChangeResult> {
  return withJournalLock(file, async (lock) => {
    const { events, end } = await readJournal(file);
    if (!events.some((e) => e.op === 'acquire' && e.id === id)) return { status: 'unknown', id };
    const lease = foldLeases(events, now().getTime()).find((l) => l.id === id);
    if (!lease) return { status: 'not-active', id };
    await appendEvents(file, [{ v: 1, op: 'release', id, at: now().toISOString() }], end, lock);
    return { status: 'done', lease };
  });
}

/** Extends a live lease by `ttlMs` from now; an ended lease cannot be renewed (its lane may be taken). */
export async function renewLease(file: string, id: string, ttlMs: number, now: () => Date): Promise<ChangeResult> {
  return withJournalLock(file, async (lock) => {
    const { events, end } = await readJournal(file);
    if (!events.some((e) => e.op === 'acquire' && e.id === id)) return { status: 'unknown', id };
    const at = now();
    const lease = foldLeases(events, at.getTime()).find((l) => l.id === id);
    if (!lease) return { status: 'not-active', id };
    await appendEvents(file, [{ v: 1, op: 'renew', id, at: at.toISOString(), ttlMs }], end, lock);
    return { status: 'done', lease: { ...lease, until: new Date(Math.max(Date.parse(lease.until), at.getTime() + ttlMs)).toISOString() } };
  });
}

/** Releases several leases (the end of a run), ignoring those already ended. */
export async function releaseLeases(file: string, ids: readonly string[], now: () => Date): Promise<void> {
  if (ids.length === 0) return;
  await withJournalLock(file, async (lock) => {
    const { events, end } = await readJournal(file);
    const active = new Set(foldLeases(events, now().getTime()).map((l) => l.id));
    const released: LeaseEvent[] = ids.filter((id) => active.has(id)).map((id) => ({ v: 1, op: 'release', id, at: now().toISOString() }));
    if (released.length > 0) await appendEvents(file, released, end, lock);
  });
}

export async function listLeases(file: string, now: () => Date): Promise<{ leases: Lease[]; corrupt: CorruptLine[] }> {
  const { events, corrupt } = await readJournal(file);
  return { leases: foldLeases(events, now().getTime()), corrupt };
}
