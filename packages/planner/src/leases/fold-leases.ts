/**
 * The lease state as a pure fold of the journal's events at a given instant. A lease is an
 * exclusive, expiring claim of one holder on a lane or path; it overlaps another when one path
 * equals, contains or lies inside the other. Expired leases are free.
 */
import { z } from 'zod';
import { containsPath } from '../scope/repo-tree.js';
import type { ActiveLease } from '../types.js';

export const LeaseEventSchema = z.discriminatedUnion('op', [
  z.object({
    v: z.literal(1),
    op: z.literal('acquire'),
    id: z.string().min(1),
    lane: z.string().min(1),
    holder: z.string().min(1),
    at: z.string(),
    ttlMs: z.number().int().positive(),
  }),
  z.object({ v: z.literal(1), op: z.literal('renew'), id: z.string().min(1), at: z.string(), ttlMs: z.number().int().positive() }),
  z.object({ v: z.literal(1), op: z.literal('release'), id: z.string().min(1), at: z.string() }),
]);

export type LeaseEvent = z.infer<typeof LeaseEventSchema>;

export interface Lease extends ActiveLease {
  id: string;
  /** When it was acquired. */
  since: string;
}

/** The lane of the whole repository: held by a serial issue, it overlaps every other lane. */
export const WHOLE_REPOSITORY = '.';

/** `./packages/cli/` → `packages/cli`, `./` → `.` (the root): leases compare normalised paths. */
export function normaliseLane(lane: string): string {
  const path = lane.trim().replace(/^(\.\/+)+/, '').replace(/\/+$/, '');
  return path === '' ? WHOLE_REPOSITORY : path;
}

export function lanesOverlap(a: string, b: string): boolean {
  const x = normaliseLane(a);
  const y = normaliseLane(b);
  return x === WHOLE_REPOSITORY || y === WHOLE_REPOSITORY || containsPath(x, y) || containsPath(y, x);
}

/** Every lease alive at `now`, in the order they were acquired. */
export function foldLeases(events: readonly LeaseEvent[], now: number): Lease[] {
  const leases = new Map<string, { lane: string; holder: string; since: string; expires: number }>();
  for (const event of events) {
    const at = Date.parse(event.at);
    if (Number.isNaN(at)) continue;
    if (event.op === 'acquire') {
      if (!leases.has(event.id)) leases.set(event.id, { lane: normaliseLane(event.lane), holder: event.holder, since: event.at, expires: at + event.ttlMs });
    } else if (event.op === 'renew') {
      const lease = leases.get(event.id);
      // A lease renewed after it expired stays expired: someone else may have taken the lane.
      if (lease && lease.expires > at) lease.expires = Math.max(lease.expires, at + event.ttlMs);
    } else leases.delete(event.id);
  }
  return [...leases.entries()]
    .filter(([, lease]) => lease.expires > now)
    .map(([id, lease]) => ({ id, lane: lease.lane, holder: lease.holder, since: lease.since, until: new Date(lease.expires).toISOString() }));
}

export type AcquireDecision = { status: 'acquired' } | { status: 'refused'; lease: Lease };

/** May `holder` take `lane` now? Refused when another holder's live lease overlaps it. */
export function decideAcquire(active: readonly Lease[], lane: string, holder: string): AcquireDecision {
  const blocking = active.find((lease) => lease.holder !== holder && lanesOverlap(lease.lane, lane));
  return blocking ? { status: 'refused', lease: blocking } : { status: 'acquired' };
}
