/**
 * Keeps a run's leases while its agent works: renewed at a third of their time (so one missed
 * renewal leaves no gap), and watched. A lease that is no longer active — released by someone
 * else, dropped from a truncated journal or from the remote's table, expired — is lost: another
 * orchestrator may hold its lane now, so the run must stop. A backend that can be watched (the
 * journal's directory) is, so that a loss is seen when it happens rather than at the next
 * renewal; a renewal that fails (a lock held too long, a remote that does not answer) is retried
 * at the next one, and the leases count as lost once they have gone unrenewed for their whole
 * time — a timer says so at that instant, even while a renewal still waits for its answer. The
 * keeper starts before the agent does, and `verify()` checks the leases are still held — before
 * the agent is started, and once more right after — so that a loss at the very start (the journal
 * emptied as the agent starts) is seen too.
 *
 * A store replaced by anything else (the journal swapped for a FIFO, a link, another file) no
 * longer holds the leases (another orchestrator may be reading an empty journal there): a
 * replacement counts as a loss at once, like a truncation or a removal.
 */
import type { LeaseBackend } from '../leases/lease-backend.js';
import { MAX_DURATION_MS } from '../leases/lease-journal.js';

export interface KeepLeasesOptions {
  backend: LeaseBackend;
  ids: readonly string[];
  ttlMs: number;
  now: () => Date;
  /** Called once, with the lane of the first lease found lost and why. */
  onLost: (lane: string, why: string) => void;
  /** A renewal that failed and will be retried (for the run's log). */
  onTrouble?: (message: string) => void;
}

export interface LeaseKeeper {
  /** Checks now that every lease is still active (confirmed by a renewal); a loss calls `onLost`. */
  verify(): Promise<void>;
  stop(): void;
}

export function keepLeases(options: KeepLeasesOptions): LeaseKeeper {
  const { backend, ids, ttlMs, now } = options;
  let stopped = false;
  let lost = false;
  let lastRenewed = now().getTime();
  const lanes = new Map<string, string>();
  const laneOf = (id: string) => lanes.get(id) ?? id;
  // The lanes, for the message: read once, while the store still holds them.
  const lanesRead = backend
    .list()
    .then(({ leases }) => {
      for (const lease of leases) if (ids.includes(lease.id)) lanes.set(lease.id, lease.lane);
    })
    .catch(() => undefined);

  const lose = (id: string, why: string) => {
    if (stopped || lost) return;
    lost = true;
    options.onLost(laneOf(id), why);
  };

  // The instant the leases have gone unrenewed for their whole time: lost, whatever is in flight.
  let deadline: NodeJS.Timeout | null = null;
  let lastTrouble = '';
  const armDeadline = () => {
    if (deadline) clearTimeout(deadline);
    deadline = setTimeout(() => lose(ids[0]!, `not renewed for ${Math.round(ttlMs / 1000)} s${lastTrouble ? `: ${lastTrouble}` : ''}`), Math.min(MAX_DURATION_MS, ttlMs));
    deadline.unref?.();
  };

  const renew = async () => {
    if (stopped || lost) return;
    const swapped = backend.replaced?.() ?? null;
    if (swapped !== null) return lose(ids[0]!, swapped);
    try {
      const results = await backend.renew(ids, ttlMs);
      if (stopped) return;
      for (const ended of results) {
        if (ended.status === 'done') continue;
        return lose(ended.id, ended.status === 'unknown' ? `it is no longer in ${backend.kind === 'journal' ? 'the journal' : backend.where}` : 'it was released or expired');
      }
      lastRenewed = now().getTime();
      lastTrouble = '';
      armDeadline();
    } catch (error) {
      const since = now().getTime() - lastRenewed;
      const message = (error as Error).message.split('\n')[0] ?? 'failed';
      lastTrouble = message;
      if (since >= ttlMs) return lose(ids[0]!, `not renewed for ${Math.round(since / 1000)} s: ${message}`);
      options.onTrouble?.(`lease renewal failed (${message}); retrying`);
    }
  };

  // A look without changing anything on each change of the store; a lease that seems gone is
  // confirmed by a renewal before the run is stopped (a torn read proves nothing).
  let pending: NodeJS.Timeout | null = null;
  const check = async () => {
    pending = null;
    if (stopped || lost) return;
    const swapped = backend.replaced?.() ?? null;
    if (swapped !== null) return lose(ids[0]!, swapped);
    try {
      const active = new Set((await backend.list()).leases.map((l) => l.id));
      if (ids.some((id) => !active.has(id))) await renew();
    } catch {
      // The next renewal will tell.
    }
  };
  const unwatch = backend.watch?.(() => {
    pending ??= setTimeout(() => void check(), 100);
  });
  armDeadline();
  // A third of the time to live (at most a Node timer's reach, at least a second).
  const timer = setInterval(() => void renew(), Math.min(MAX_DURATION_MS, Math.max(1_000, Math.floor(ttlMs / 3))));

  return {
    async verify() {
      await lanesRead;
      if (pending) clearTimeout(pending);
      await check();
    },
    stop() {
      stopped = true;
      clearInterval(timer);
      if (deadline) clearTimeout(deadline);
      if (pending) clearTimeout(pending);
      unwatch?.();
    },
  };
}
