/**
 * The lease table the git backend keeps on the remote, as data: one commit whose tree holds
 * `table.json` (`{"v":1,"epoch":N}`: how many times the table was written, the fencing token's
 * source) and one small JSON file per lease under `leases/<fan-out>/<id>.json`. The fan-out is the
 * first two hex digits of the sha-1 of the lease id: 256 folders, so that a change rewrites one
 * small folder, the folder of folders and the root, whatever the number of live leases.
 *
 * Liveness is judged with a clock-skew margin (`skewMs`), always in the direction that keeps a
 * lane exclusive: another machine's lease holds its lane until `expires + skewMs` by our clock,
 * and only then may a writer drop it; a holder renews its own lease only before `expires` by its
 * own clock. Two machines whose clocks differ by less than the margin never both believe they hold
 * one lane; a lease acquired more than the margin in the future holds nothing. Pure: no git, no clock.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { checkLane, IsoInstant, MAX_LEASE_TTL_MS, type Lease } from '@waves/planner';

export const TABLE_FILE = 'table.json';
export const LEASES_DIR = 'leases';

/** A lease id as a file name: waves makes `l-<time>-<hex>`; anything else in the table is not a lease. */
const LEASE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** An instant with `Z` or an offset (fold-leases.ts): a date without a zone depends on each reader's `TZ`. */
const IsoDate = IsoInstant;

export const TableLeaseSchema = z
  .object({
    v: z.literal(1),
    id: z.string().regex(LEASE_ID),
    path: z.string().transform((lane, ctx) => {
      const checked = checkLane(lane);
      if (checked.ok) return checked.lane;
      ctx.addIssue({ code: 'custom', message: `path ${JSON.stringify(lane)}: ${checked.problem}` });
      return z.NEVER;
    }),
    holder: z.string().min(1),
    run: z.string().nullable(),
    issue: z.number().int().positive().nullable(),
    acquired: IsoDate,
    expires: IsoDate,
    epoch: z.number().int().positive(),
  })
  .refine((lease) => Date.parse(lease.expires) - Date.parse(lease.acquired) <= MAX_LEASE_TTL_MS * 2, 'lives longer than any lease may');

export type TableLease = z.infer<typeof TableLeaseSchema>;

export const TableHeaderSchema = z.object({ v: z.literal(1), epoch: z.number().int().nonnegative() });

/** The fan-out folder of a lease id (`leases/<xx>`). */
export function fanOutOf(id: string): string {
  return createHash('sha1').update(id).digest('hex').slice(0, 2);
}

/** Where a lease lives in the table's tree. */
export function leasePath(id: string): string {
  return `${LEASES_DIR}/${fanOutOf(id)}/${id}.json`;
}

export function isLeaseId(id: string): boolean {
  return LEASE_ID.test(id);
}

/** The text of a lease's file (stable key order: the same lease is the same blob). */
export function leaseText(lease: TableLease): string {
  const { v, id, path, holder, run, issue, acquired, expires, epoch } = lease;
  return `${JSON.stringify({ v, id, path, holder, run, issue, acquired, expires, epoch })}\n`;
}

/**
 * Holds its lane for others at `now`: until its expiry plus the margin. A lease acquired more than
 * the margin after `now` holds nothing (as a journal event dated in the future, fold-leases.ts): a
 * clock far ahead, or an entry forged with a date in 2099, cannot keep a lane for ever — and
 * whoever writes next, or `waves lease gc`, drops it.
 */
export function holdsForOthers(lease: TableLease, now: number, skewMs: number): boolean {
  return Date.parse(lease.acquired) <= now + skewMs && Date.parse(lease.expires) + skewMs > now;
}

/** Still the holder's to renew at `now` (by the holder's clock): before its expiry. */
export function renewable(lease: TableLease, now: number): boolean {
  return Date.parse(lease.expires) > now;
}

/** A table entry as the rest of waves sees a lease. */
export function toLease(lease: TableLease): Lease {
  return { id: lease.id, lane: lease.path, holder: lease.holder, since: lease.acquired, until: new Date(Date.parse(lease.expires)).toISOString(), epoch: lease.epoch };
}

/** The run and issue a holder names (`alice@host/resolve-101-20261129T120000123Z`), for people reading the table. */
export function runAndIssueOf(holder: string): { run: string | null; issue: number | null } {
  const match = /\/(resolve-(\d+)-\d{8}T\d{9}Z)$/.exec(holder);
  if (!match) return { run: null, issue: null };
  // Only an issue number the table's schema takes (a positive safe integer): #0 or one past 2^53 made the lease file foreign.
  const issue = Number(match[2]);
  return { run: match[1]!, issue: Number.isSafeInteger(issue) && issue > 0 ? issue : null };
}

/**
 * The live leases of one table at `now`, and whether any two overlap: the invariant the race test
 * replays over the ref's history. Pure.
 */
export function liveLeases(leases: readonly TableLease[], now: number, skewMs: number): TableLease[] {
  return leases.filter((lease) => holdsForOthers(lease, now, skewMs));
}
