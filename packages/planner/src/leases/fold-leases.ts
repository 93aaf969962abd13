/**
 * The lease state as a pure fold of the journal's events at a given instant. A lease is an
 * exclusive, expiring claim of one holder on a lane or path; it overlaps another when one path
 * equals, contains or lies inside the other (compared in their canonical spelling, see
 * canonical-lane.ts). Expired leases are free, and an event dated in the future never holds.
 */
import { z } from 'zod';
import { containsPath } from '../paths/repo-paths.js';
import type { ActiveLease } from '../types.js';
import { canonicalLane, checkLane, WHOLE_REPOSITORY } from './canonical-lane.js';

/**
 * How far ahead of `now` an event may be dated and still count: clocks of orchestrators on one
 * machine agree, but an event written just now by another process may carry a later millisecond.
 * Anything further ahead is a wrong clock or a forged line, and must not extend a lease.
 */
export const CLOCK_SKEW_MS = 60_000;

/**
 * The longest time to live a journal line may carry: 2^31−1 ms (24.8 days), the longest a Node
 * timer can wait — the bound of every duration waves takes. A longer one (a forged `9e15`) is not a
 * lease event: `readJournal` reports the line as corrupt, and it holds nothing.
 */
export const MAX_LEASE_TTL_MS = 2 ** 31 - 1;

/** The last instant a Date can hold (±8.64e15 ms around 1970). */
const DATE_LIMIT_MS = 8.64e15;

const TtlMs = z.number().int().positive().max(MAX_LEASE_TTL_MS);
/**
 * An instant: ISO 8601 with `Z` or an offset, as `toISOString()` writes it. A date without a zone
 * is read in each reader's local time — one journal held a lane for a reader in UTC and not for
 * one in Los Angeles — so it dates nothing.
 */
export const IsoInstant = z.iso.datetime({ offset: true }).refine((text) => Number.isFinite(Date.parse(text)), 'not a date');
const EventDate = IsoInstant;

/** A lane as the journal stores it: canonical, or the line is not a lease event at all. */
const JournalLane = z.string().transform((lane, ctx) => {
  const checked = checkLane(lane);
  if (checked.ok) return checked.lane;
  ctx.addIssue({ code: 'custom', message: `lane ${JSON.stringify(lane)}: ${checked.problem}` });
  return z.NEVER;
});

/**
 * Where in the journal its writer expected the line to begin (a byte offset: the end of the
 * journal as it read it, under the lock). A line found anywhere else was written by a process
 * whose lock was taken over while it stalled, after another's line: it counts for nothing
 * (`readJournal`). Absent on lines of older versions, which count wherever they are.
 */
const JournalPos = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional();

/**
 * The journal's generation a line was written for: a compaction replaces the journal by a new
 * file whose first line names a new generation (`JournalHeaderSchema`), and a line that carries a
 * `pos` counts only in the generation it names — a writer that read the journal before a
 * compaction and appends to the new file finds its line void, wherever it lands. Absent on lines
 * of a journal never compacted.
 */
const JournalGenId = z.string().regex(/^[0-9a-f]{8,64}$/);
const JournalGen = JournalGenId.optional();

/**
 * The first line of a compacted journal: its generation, and nothing else (a header with other
 * keys, or longer than `MAX_JOURNAL_HEADER_BYTES`, is not one waves wrote, and is refused).
 */
export const JournalHeaderSchema = z.strictObject({ v: z.literal(1), op: z.literal('journal'), gen: JournalGenId });

/** The most bytes a journal's header line may take, its line feed excluded (waves writes 50). */
export const MAX_JOURNAL_HEADER_BYTES = 256;

/**
 * The last line a compaction writes into the journal it replaces, at its `pos` like any line: it
 * names the new file's generation (`next`, in `<journal>.<next>.next` until renamed into place).
 * Once it counts, every later line of that file is void (a stalled writer's), and of two
 * compactions — or a compaction and an append — that read the same end, only the first counts.
 */
export const JournalSealSchema = z.object({
  v: z.literal(1),
  op: z.literal('sealed'),
  next: JournalGenId,
  at: IsoInstant,
  pos: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  gen: JournalGen,
});

export type JournalSeal = z.infer<typeof JournalSealSchema>;

/**
 * The lanes of one request are one acquisition: each of its lines names the batch and how many
 * lines it has, and `readJournal` counts them only when all of them are there — an append cut
 * short (a full disk, a kill during a long write) gives none of the lanes, never some.
 */
const AcquireBatch = z.object({ id: z.string().regex(/^[0-9a-f]{8,64}$/), n: z.number().int().min(2).max(100_000) }).optional();

export const LeaseEventSchema = z.discriminatedUnion('op', [
  z.object({
    v: z.literal(1),
    op: z.literal('acquire'),
    id: z.string().min(1),
    lane: JournalLane,
    holder: z.string().min(1),
    at: EventDate,
    ttlMs: TtlMs,
    batch: AcquireBatch,
    pos: JournalPos,
    gen: JournalGen,
  }),
  z.object({ v: z.literal(1), op: z.literal('renew'), id: z.string().min(1), at: EventDate, ttlMs: TtlMs, pos: JournalPos, gen: JournalGen }),
  z.object({ v: z.literal(1), op: z.literal('release'), id: z.string().min(1), at: EventDate, pos: JournalPos, gen: JournalGen }),
]);

export type LeaseEvent = z.infer<typeof LeaseEventSchema>;

export interface Lease extends ActiveLease {
  id: string;
  /** When it was acquired. */
  since: string;
  /** The fencing token: the lease table's epoch when it was acquired (the git backend's; the journal has none). */
  epoch?: number;
}

/** Whether two lanes share a path; throws `InputError` for a lane with no canonical spelling. */
export function lanesOverlap(a: string, b: string): boolean {
  const x = canonicalLane(a);
  const y = canonicalLane(b);
  return x === WHOLE_REPOSITORY || y === WHOLE_REPOSITORY || containsPath(x, y) || containsPath(y, x);
}

/**
 * Every lease alive at `now`, in the order they were acquired. An acquire or renew dated more
 * than `CLOCK_SKEW_MS` after `now` is ignored (a release always counts). An acquire whose lane has
 * no canonical spelling is ignored too: `readJournal` reports such a line as corrupt, and the
 * fold never guesses a wider or narrower lane for it. Events the schema did not check are folded
 * without throwing: an expiry no Date can hold (a time to live past the bound) makes no lease and
 * extends none.
 */
export function foldLeases(events: readonly LeaseEvent[], now: number): Lease[] {
  const leases = new Map<string, { lane: string; holder: string; since: string; expires: number }>();
  for (const event of events) {
    const at = Date.parse(event.at);
    if (Number.isNaN(at)) continue;
    if (event.op !== 'release' && at > now + CLOCK_SKEW_MS) continue;
    if (event.op === 'acquire') {
      const lane = checkLane(event.lane);
      const expires = at + event.ttlMs;
      if (lane.ok && isDateMs(expires) && !leases.has(event.id)) leases.set(event.id, { lane: lane.lane, holder: event.holder, since: event.at, expires });
    } else if (event.op === 'renew') {
      const lease = leases.get(event.id);
      const expires = at + event.ttlMs;
      // A lease renewed after it expired stays expired: someone else may have taken the lane.
      if (lease && lease.expires > at && isDateMs(expires)) lease.expires = Math.max(lease.expires, expires);
    } else leases.delete(event.id);
  }
  return [...leases.entries()]
    .filter(([, lease]) => lease.expires > now)
    .map(([id, lease]) => ({ id, lane: lease.lane, holder: lease.holder, since: lease.since, until: new Date(lease.expires).toISOString() }));
}

function isDateMs(ms: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms) <= DATE_LIMIT_MS;
}
