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
 *
 * Compaction (`waves lease gc`, and any change that finds the journal past `COMPACT_AT_BYTES`)
 * keeps the journal small: under the lock, the live leases, folded, are written to a new file of
 * a new generation (`<journal>.<gen>.next`, its first line `{"op":"journal","gen"}`), a seal line
 * naming it is appended to the old file at its `pos`, and the new file is renamed into place. The
 * seal competes with any stalled writer's line for the same end, so exactly one of them counts:
 * a compaction whose seal lost renames nothing, and once a seal counts every later line of that
 * file is void. Each line also carries the generation it was written for (`gen`), so a stalled
 * writer that read the old file and appends to the new one finds its line void, wherever it
 * lands. A seal's new file is renamed into place by whoever finds the seal first (rename is
 * atomic: it happens once), so a compaction stalled between its seal and its rename is finished by
 * the next change, and its own late rename finds nothing to move.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { lstat, mkdir, open, readdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { decideLanes, refusalOf, type AcquireResult, type ChangeResult } from './lease-backend.js';
import { canonicalLane, foldLeases, InputError, JournalHeaderSchema, JournalSealSchema, LeaseEventSchema, MAX_JOURNAL_HEADER_BYTES, MAX_LEASE_TTL_MS, readRegularBytes, WavesError, type JournalSeal, type Lease, type LeaseEvent, type LeaseRules } from '@waves/planner';

export const DEFAULT_JOURNAL = '.waves/leases.jsonl';

export interface CorruptLine {
  line: number;
  text: string;
  /**
   * `void`: a well-formed event written after its writer lost the lock (found elsewhere than its
   * `pos`); `partial`: one line of an acquisition of several lanes not all of whose lines landed.
   */
  reason?: 'void' | 'partial';
}

export interface JournalRead {
  events: LeaseEvent[];
  corrupt: CorruptLine[];
  /** Where the next line goes: the journal's size in bytes, whether its last line is torn (no line feed), and its generation. */
  end: JournalEnd;
  /** The compaction that sealed this file (the generation of the file replacing it), or null: a sealed file's leases are its events before the seal. */
  seal: { next: string } | null;
}

/** The end of the journal as read under the lock: the next line begins at `offset`, after a line feed when `torn`. */
export interface JournalEnd {
  offset: number;
  torn: boolean;
  /** The generation of the file read (its first line's), or null for a journal never compacted: each line appended carries it. */
  gen: string | null;
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
 * The most a journal may hold when read without compacting it (`lease list`, a plan): about 300 000
 * events. Changes compact it long before (`COMPACT_AT_BYTES`), and refuse to write past it.
 * NOTE: the bound is what a journal replaced by something huge costs.
 */
export const MAX_JOURNAL_BYTES = 64 * 1024 * 1024;

/** A change that finds the journal this large compacts it first, under its lock (`waves lease gc` does at any size). */
export const COMPACT_AT_BYTES = 8 * 1024 * 1024;

/** The most a change or `gc` reads to compact a journal that grew past `MAX_JOURNAL_BYTES` (one written before compaction existed). */
const MAX_COMPACTABLE_BYTES = 512 * 1024 * 1024;

/** What is wrong with a journal that is there but cannot be a journal: one line naming it (exit 2). */
function journalError(file: string, reason: string): WavesError {
  if (/larger than/.test(reason)) return new InputError(`lease journal ${file}: ${reason}; waves lease gc compacts it to its live leases`);
  return new InputError(`lease journal ${file}: ${reason}; waves reads and appends only a regular file there (remove it, or fix leases.journal)`);
}

/**
 * The journal's events; none when it does not exist. A journal an agent replaced by a FIFO, a
 * device, a link or something huge is refused with one line (never followed, never a hang).
 * A line counts where its writer found the end (`pos`) and in the generation it names (`gen`);
 * in a file sealed by a compaction, no line after the seal counts.
 */
export async function readJournal(file: string, options: { maxBytes?: number } = {}): Promise<JournalRead> {
  const read = await readRegularBytes(file, { maxBytes: options.maxBytes ?? MAX_JOURNAL_BYTES });
  if (!read.ok) {
    if (read.kind === 'missing') return { events: [], corrupt: [], end: { offset: 0, torn: false, gen: null }, seal: null };
    throw journalError(file, read.reason);
  }
  const bytes = Buffer.from(read.content.buffer, read.content.byteOffset, read.content.byteLength);
  const events: LeaseEvent[] = [];
  const corrupt: CorruptLine[] = [];
  let gen: string | null = null;
  let seal: { next: string } | null = null;
  // Only where its writer found the end (`pos`; lines of other tools, with none, count anywhere),
  // in the generation it read. A line with no `gen` is an older waves' (this one starts a
  // generation before it writes): it counts where it found the end, as that waves read it back —
  // so a supervisor of an older build renewing through an upgrade keeps its lane, and no one else
  // is given it. A seal is this waves' alone: only in the generation it names.
  const counts = (line: { pos?: number | undefined; gen?: string | undefined }, start: number) =>
    (line.gen === undefined || line.gen === gen) && (line.pos === undefined || line.pos === start);
  const sealCounts = (line: { pos: number; gen?: string | undefined }, start: number) => line.pos === start && (line.gen ?? null) === gen;
  // The lines of each acquisition of several lanes that count: all of them count, or none.
  const batches = new Map<string, { n: number; lines: { event: LeaseEvent; line: CorruptLine }[] }>();
  // Line by line over the bytes: a line's offset is where its first byte is, whatever its text holds.
  let start = 0;
  for (let number = 1; start < bytes.length; number++) {
    // A journal being compacted is large: let the lock's refresh timer run now and then.
    if (number % 20_000 === 0) await new Promise((resolve) => setImmediate(resolve));
    const feed = bytes.indexOf(10, start);
    const stop = feed < 0 ? bytes.length : feed;
    const line = bytes.toString('utf8', start, stop);
    if (line.trim() !== '') {
      let json: unknown = null;
      try {
        json = JSON.parse(line);
      } catch {
        json = null;
      }
      const op = typeof json === 'object' && json !== null ? (json as { op?: unknown }).op : undefined;
      // A first line JSON cannot read (a header with a byte-order mark before it, a NUL after it,
      // its words in escapes): refused as a foreign header is, never read as no header at all —
      // waves writes its header first, in one write (red team J5).
      if (start === 0 && json === null) throw new InputError(`lease journal ${file}: its first line is not JSON (a journal header waves did not write?), so no lease in it can be judged; stop every waves run, then move it aside (mv ${file} ${file}.bad) and run again`);
      if (op === 'journal' && start === 0) {
        // The generation every line of the file is judged by: one waves did not write could make
        // every lease void (or this process's appends fail after they counted); refused, never guessed.
        const header = headerGen(bytes.subarray(0, Math.min(bytes.length, MAX_JOURNAL_HEADER_BYTES + 1)));
        if (header === null) throw new InputError(`lease journal ${file}: its first line is a journal header waves did not write (other keys, or longer than ${MAX_JOURNAL_HEADER_BYTES} bytes), so no lease in it can be judged; stop every waves run, then move it aside (mv ${file} ${file}.bad) and run again`);
        gen = header;
      } else if (op === 'sealed') {
        const parsed = JournalSealSchema.safeParse(json);
        if (!parsed.success) corrupt.push({ line: number, text: line });
        else if (!sealCounts(parsed.data, start)) corrupt.push({ line: number, text: line, reason: 'void' });
        else seal = { next: parsed.data.next };
      } else {
        const parsed = LeaseEventSchema.safeParse(json);
        if (!parsed.success) corrupt.push({ line: number, text: line });
        else if (seal !== null || !counts(parsed.data, start)) corrupt.push({ line: number, text: line, reason: 'void' });
        else {
          events.push(parsed.data);
          const batch = parsed.data.op === 'acquire' ? parsed.data.batch : undefined;
          if (batch !== undefined) {
            const lines = batches.get(batch.id) ?? { n: batch.n, lines: [] };
            lines.lines.push({ event: parsed.data, line: { line: number, text: line, reason: 'partial' } });
            batches.set(batch.id, lines);
          }
        }
      }
    }
    start = stop + 1;
  }
  const partial = new Set<LeaseEvent>();
  for (const batch of batches.values()) {
    if (batch.lines.length === batch.n && batch.lines.every(({ event }) => event.op === 'acquire' && event.batch?.n === batch.n)) continue;
    for (const { event, line } of batch.lines) {
      partial.add(event);
      corrupt.push(line);
    }
  }
  return {
    events: partial.size === 0 ? events : events.filter((event) => !partial.has(event)),
    corrupt: partial.size === 0 ? corrupt : corrupt.sort((a, b) => a.line - b.line),
    end: { offset: bytes.length, torn: bytes.length > 0 && bytes[bytes.length - 1] !== 10, gen },
    seal,
  };
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
  await backdateFutureLock(lockPath);
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

/**
 * A lock dated more than the stale time ahead of the clock is stale too: proper-lockfile judges a
 * lock by its age alone, so one left by a waves killed while the clock was ahead (then put back by
 * NTP), or touched by an agent, was never taken over — every lease command, every renewal waited
 * and failed until someone removed it by hand. It is dated back, and the library takes it over as
 * it takes over any stale lock. NOTE: a live holder whose clock went back that far is taken over
 * too, as one stalled past the stale time is: its lines then count only where it found the end.
 */
async function backdateFutureLock(lockPath: string): Promise<void> {
  const info = await lstat(lockPath).catch(() => null);
  if (info === null || !info.isDirectory() || info.mtimeMs <= Date.now() + STALE_MS) return;
  const past = new Date(Date.now() - 2 * STALE_MS);
  await utimes(lockPath, past, past).catch(() => undefined);
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
  await appendLines(file, events.map((event) => (pos: number) => writable(file, { ...event, pos, ...(end.gen !== null ? { gen: end.gen } : {}) })), end, lock);
}

/**
 * Appends one line per record (made from its `pos`) where the journal ended when read, in one
 * write, flushed; then reads them back, and checks the file written is of the generation read.
 */
async function appendLines(file: string, records: readonly ((pos: number) => object)[], end: JournalEnd, lock: JournalLock, bounded = true): Promise<void> {
  lock.assertHeld();
  let offset = end.offset + (end.torn ? 1 : 0);
  const lines = records.map((record) => {
    const line = `${JSON.stringify(record(offset))}\n`;
    offset += Buffer.byteLength(line);
    return line;
  });
  const text = `${end.torn ? '\n' : ''}${lines.join('')}`;
  const bytes = Buffer.from(text);
  // Refused before it is written: past the bound no command could read the journal again (a seal
  // is not: its file is being replaced).
  if (bounded && end.offset + bytes.length > MAX_JOURNAL_BYTES) {
    throw new InputError(`lease journal ${file}: this change would take it past ${MAX_JOURNAL_BYTES / 1024 / 1024} MB, the most waves reads, though it was compacted to its live leases; nothing was written (release the leases no one needs: waves lease list, waves lease release ID)`);
  }
  lock.writing();
  const handle = await openForAppend(file);
  try {
    await handle.appendFile(bytes);
    await handle.sync();
    const back = Buffer.alloc(bytes.length);
    const { bytesRead } = await handle.read(back, 0, bytes.length, end.offset);
    if (bytesRead !== bytes.length || !back.equals(bytes)) throw lock.lostError();
    // The file written to is the one read: a compaction meanwhile put a file of another generation there.
    if ((await generationOf(handle)) !== end.gen) throw lock.lostError();
  } finally {
    await handle.close();
  }
  end.offset += bytes.length;
  end.torn = false;
}

/** The generation an open journal names in its first line, or null: read as `readJournal` reads it. */
async function generationOf(handle: FileHandle): Promise<string | null> {
  const head = Buffer.alloc(MAX_JOURNAL_HEADER_BYTES + 1);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  return headerGen(head.subarray(0, bytesRead));
}

/**
 * The generation a journal's first bytes (at least `MAX_JOURNAL_HEADER_BYTES + 1` of them, or
 * all) name in a header line of waves' own, or null: the one reading of a header, shared by
 * `readJournal`, the check after every append, and the backend's replaced-journal check.
 */
export function headerGen(head: Uint8Array): string | null {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const feed = bytes.subarray(0, MAX_JOURNAL_HEADER_BYTES + 1).indexOf(10);
  if (feed < 0) return null;
  try {
    const header = JournalHeaderSchema.safeParse(JSON.parse(bytes.toString('utf8', 0, feed)));
    return header.success ? header.data.gen : null;
  } catch {
    return null;
  }
}

/** Where a compaction writes the journal of generation `gen` before renaming it into place. */
export function successorOf(file: string, gen: string): string {
  return `${file}.${gen}.next`;
}

export interface Compaction {
  /** The journal's size before, and after, in bytes. */
  before: number;
  after: number;
  /** The live leases kept. */
  kept: number;
  /** Whether a new generation replaced the journal (not when it would not shrink, or not fit). */
  replaced: boolean;
}

/**
 * Compacts the journal read under `lock` (`read`) to its leases live at `now`: writes the new
 * generation aside, seals the old file at its end and renames the new one into place (see the
 * header). Throws the lock's lost error when another line took the end first: nothing is
 * renamed then. NOTE: events dated past the clock-skew margin hold nothing and are dropped, as
 * are corrupt lines, void lines, and the ids of ended leases (releasing one then says unknown).
 */
export async function compactJournal(file: string, read: JournalRead, now: Date, lock: JournalLock, options: { force?: boolean } = {}): Promise<Compaction> {
  lock.assertHeld();
  const live = foldLeases(read.events, now.getTime());
  const gen = randomBytes(8).toString('hex');
  const header = `${JSON.stringify({ v: 1, op: 'journal', gen })}\n`;
  let offset = Buffer.byteLength(header);
  const lines = [header];
  for (const event of live.flatMap(eventsOfLease)) {
    const line = `${JSON.stringify(writable(file, { ...event, pos: offset, gen }))}\n`;
    lines.push(line);
    offset += Buffer.byteLength(line);
  }
  // Live leases only, and each line now says where and for which generation: it may not shrink. A
  // sealed file whose new file is gone is compacted whatever the gain, so long as it can be read.
  if (offset > MAX_JOURNAL_BYTES || (!options.force && offset >= read.end.offset)) return { before: read.end.offset, after: read.end.offset, kept: live.length, replaced: false };
  const next = successorOf(file, gen);
  const handle = await open(next, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
  try {
    await handle.writeFile(lines.join(''));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await syncFolder(path.dirname(file));
  try {
    const seal = (pos: number): JournalSeal => JournalSealSchema.parse({ v: 1, op: 'sealed', next: gen, at: now.toISOString(), pos, ...(read.end.gen !== null ? { gen: read.end.gen } : {}) });
    await appendLines(file, [seal], { ...read.end }, lock, false);
  } catch (error) {
    // A seal that did not land at its place counts for nothing: its new file is never renamed.
    await rm(next, { force: true });
    throw error;
  }
  await finishCompaction(file, gen);
  await removeLeftSuccessors(file, gen);
  return { before: read.end.offset, after: offset, kept: live.length, replaced: true };
}

/** Renames a sealed journal's new file into place; false when it is not there (renamed by another process, or lost). */
async function finishCompaction(file: string, gen: string): Promise<boolean> {
  try {
    await rename(successorOf(file, gen), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new InputError(`lease journal ${file}: its compaction ${path.basename(successorOf(file, gen))} could not be renamed into place (${codeOrMessage(error)}); run again`);
  }
  await syncFolder(path.dirname(file));
  return true;
}

/** The successors of compactions that died before sealing, an hour old or more (a live one is seconds old). */
async function removeLeftSuccessors(file: string, kept: string): Promise<void> {
  const folder = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !/^[0-9a-f]{8,64}\.next$/.test(name.slice(prefix.length)) || name === path.basename(successorOf(file, kept))) continue;
    const info = await lstat(path.join(folder, name)).catch(() => null);
    if (info?.isFile() && Date.now() - info.mtimeMs > 3_600_000) await rm(path.join(folder, name), { force: true });
  }
}

async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, constants.O_RDONLY).catch(() => null);
  if (handle === null) return;
  await handle.sync().catch(() => undefined);
  await handle.close();
}

/**
 * A live lease as the fewest events that fold to it: its acquisition at `since`, and renewals up to
 * `until` when it lives longer than one time to live can say (each within the bound, each before
 * the expiry it extends, none dated after `until` less one time to live — never in the future).
 */
function eventsOfLease(lease: Lease): LeaseEvent[] {
  const since = Date.parse(lease.since);
  const until = Date.parse(lease.until);
  const acquire = (ttlMs: number): LeaseEvent => ({ v: 1, op: 'acquire', id: lease.id, lane: lease.lane, holder: lease.holder, at: lease.since, ttlMs });
  const renew = (at: number): LeaseEvent => ({ v: 1, op: 'renew', id: lease.id, at: new Date(at).toISOString(), ttlMs: MAX_LEASE_TTL_MS });
  if (until - since <= MAX_LEASE_TTL_MS) return [acquire(until - since)];
  const events = [acquire(MAX_LEASE_TTL_MS)];
  let expires = since + MAX_LEASE_TTL_MS;
  while (until - MAX_LEASE_TTL_MS >= expires) {
    events.push(renew(expires - 1));
    expires = expires - 1 + MAX_LEASE_TTL_MS;
  }
  events.push(renew(until - MAX_LEASE_TTL_MS));
  return events;
}

/**
 * The journal as a change reads it under the lock: a sealed file's compaction finished first (or,
 * its new file gone, compacted anew), and one past `COMPACT_AT_BYTES` compacted first.
 */
async function readToChange(file: string, lock: JournalLock, now: Date): Promise<JournalRead> {
  let compacted = false;
  for (let attempt = 0; attempt < 5; attempt++) {
    const read = await readJournal(file, { maxBytes: MAX_COMPACTABLE_BYTES });
    if (read.seal !== null) {
      if (await finishCompaction(file, read.seal.next)) continue;
      // Renamed by another process meanwhile, or gone: then the sealed file is compacted anew (a later seal at its place counts).
      const again = await readJournal(file, { maxBytes: MAX_COMPACTABLE_BYTES });
      if (again.seal?.next === read.seal.next && again.end.offset === read.end.offset) {
        const compaction = await compactJournal(file, again, now, lock, { force: true });
        if (!compaction.replaced) throw new InputError(`lease journal ${file}: sealed by a compaction whose new file ${path.basename(successorOf(file, read.seal.next))} is gone, and its live leases take more than ${MAX_JOURNAL_BYTES / 1024 / 1024} MB; release the leases no one needs`);
      }
      continue;
    }
    // A journal of no generation (new, or written by an older waves) is given one before this
    // waves writes to it: then every line it writes names its generation, and only an older
    // waves' lines have none (see `readJournal`).
    if (!compacted && (read.end.gen === null || read.end.offset >= COMPACT_AT_BYTES)) {
      compacted = true;
      if (read.end.gen === null) {
        const compaction = await compactJournal(file, read, now, lock, { force: true });
        if (!compaction.replaced) return read;
        continue;
      }
      // Nothing written when it would not shrink (live leases only): `read` is the journal still.
      const compaction = await compactJournal(file, read, now, lock);
      if (!compaction.replaced) return read;
      continue;
    }
    return read;
  }
  throw new WavesError(`lease journal ${file}: it was sealed by another compaction at every read; run again`);
}

/** Compacts the journal now, under its lock, at any size (`waves lease gc`); nothing when there is none. */
export async function compactLeaseJournal(file: string, now: () => Date): Promise<Compaction> {
  if ((await lstat(file).catch(() => null)) === null) return { before: 0, after: 0, kept: 0, replaced: false };
  return withJournalLock(file, async (lock) => {
    for (let attempt = 0; attempt < 4; attempt++) {
      const read = await readJournal(file, { maxBytes: MAX_COMPACTABLE_BYTES });
      if (read.end.offset === 0) return { before: 0, after: 0, kept: 0, replaced: false };
      if (read.seal !== null && (await finishCompaction(file, read.seal.next))) continue;
      return compactJournal(file, read, now(), lock, { force: read.seal !== null });
    }
    throw new WavesError(`lease journal ${file}: it was sealed by another compaction at every read; run again`);
  });
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
async function openForAppend(file: string): Promise<FileHandle> {
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
    const now = request.now();
    const { events, end } = await readToChange(file, lock, now);
    const active = foldLeases(events, now.getTime());
    const verdict = decideLanes(active, canonical, request.holder, request.rules);
    if (verdict.status === 'refused') return [refusalOf(verdict)];
    // All the lanes in one write, one batch: they count together, or none does — even when the write is cut short.
    const batch = canonical.length > 1 ? { batch: { id: randomBytes(8).toString('hex'), n: canonical.length } } : {};
    const taken: LeaseEvent[] = canonical.map((lane) => ({ v: 1, op: 'acquire', id: newLeaseId(), lane, holder: request.holder, at: now.toISOString(), ttlMs: request.ttlMs, ...batch }));
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
    const { events, end } = await readToChange(file, lock, now());
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
    const { events, end } = await readToChange(file, lock, now());
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
    const { events, end } = await readToChange(file, lock, now());
    const active = new Set(foldLeases(events, now().getTime()).map((l) => l.id));
    const released: LeaseEvent[] = ids.filter((id) => active.has(id)).map((id) => ({ v: 1, op: 'release', id, at: now().toISOString() }));
    if (released.length > 0) await appendEvents(file, released, end, lock);
  });
}

export async function listLeases(file: string, now: () => Date): Promise<{ leases: Lease[]; corrupt: CorruptLine[] }> {
  const { events, corrupt } = await readJournal(file);
  return { leases: foldLeases(events, now().getTime()), corrupt };
}
