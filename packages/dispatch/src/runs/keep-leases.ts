/**
 * Keeps a run's leases while its agent works: renewed at a third of their time (so one missed
 * renewal leaves no gap), and watched. A lease that is no longer active — released by someone
 * else, dropped from a truncated journal, expired — is lost: another orchestrator may hold its
 * lane now, so the run must stop. The journal's directory is watched, so that a loss is seen
 * when it happens rather than at the next renewal; a renewal that fails (a lock held too long) is
 * retried at the next one, and counts as a loss once the leases have gone unrenewed for their
 * whole time. The keeper starts before the agent does, and `verify()` checks the leases are still
 * held — before the agent is started, and once more right after — so that a loss at the very start
 * (the journal emptied as the agent starts) is seen too.
 *
 * The journal is the file it was when the keeper started, or the leases are lost: one replaced by
 * anything else — a FIFO, a link, a folder, another file (another inode or device) — no longer
 * holds them (another orchestrator may be reading an empty journal there), so a replacement counts
 * as a loss at once, like a truncation or a removal.
 */
import { lstatSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { foldLeases } from '@waves/planner';
import { MAX_DURATION_MS, readJournal, renewLease } from '../leases/lease-journal.js';

export interface KeepLeasesOptions {
  journal: string;
  ids: readonly string[];
  ttlMs: number;
  now: () => Date;
  /** Called once, with the lane of the first lease found lost and why. */
  onLost: (lane: string, why: string) => void;
  /** A renewal that failed and will be retried (for the run's log). */
  onTrouble?: (message: string) => void;
}

export interface LeaseKeeper {
  /** Checks now that every lease is still active (confirmed under the lock); a loss calls `onLost`. */
  verify(): Promise<void>;
  stop(): void;
}

export function keepLeases(options: KeepLeasesOptions): LeaseKeeper {
  const { journal, ids, ttlMs, now } = options;
  let stopped = false;
  let lost = false;
  let lastRenewed = now().getTime();
  const lanes = new Map<string, string>();
  const laneOf = (id: string) => lanes.get(id) ?? id;
  // The lanes, for the message: read once, while the journal still holds them.
  const lanesRead = readJournal(journal)
    .then(({ events }) => {
      for (const e of events) if (e.op === 'acquire' && ids.includes(e.id)) lanes.set(e.id, e.lane);
    })
    .catch(() => undefined);

  // What the journal is now: a different file, or no file, means the leases it held are gone.
  const identityOf = () => {
    try {
      const info = lstatSync(journal);
      return { dev: info.dev, ino: info.ino };
    } catch {
      return null;
    }
  };
  const identity = identityOf();
  /** How the journal was replaced since the keeper started, or null (the same file, or none: a removal is seen by reading it). */
  const replaced = (): string | null => {
    if (identity === null) return null;
    let info;
    try {
      info = lstatSync(journal);
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : `cannot be looked at (${(error as NodeJS.ErrnoException).code})`;
    }
    if (info.isSymbolicLink()) return 'was replaced by a symbolic link';
    if (info.isFIFO()) return 'was replaced by a FIFO';
    if (info.isDirectory()) return 'was replaced by a folder';
    if (!info.isFile()) return 'was replaced by a socket or device';
    if (info.dev !== identity.dev || info.ino !== identity.ino) return 'was replaced by another file';
    return null;
  };

  const lose = (id: string, why: string) => {
    if (stopped || lost) return;
    lost = true;
    options.onLost(laneOf(id), why);
  };

  const renew = async () => {
    if (stopped || lost) return;
    const swapped = replaced();
    if (swapped !== null) return lose(ids[0]!, `the journal ${journal} ${swapped}`);
    try {
      for (const id of ids) {
        const result = await renewLease(journal, id, ttlMs, now);
        if (stopped) return;
        if (result.status !== 'done') return lose(id, result.status === 'unknown' ? 'it is no longer in the journal' : 'it was released or expired');
      }
      lastRenewed = now().getTime();
    } catch (error) {
      const since = now().getTime() - lastRenewed;
      const message = (error as Error).message.split('\n')[0];
      if (since >= ttlMs) return lose(ids[0]!, `not renewed for ${Math.round(since / 1000)} s: ${message}`);
      options.onTrouble?.(`lease renewal failed (${message}); retrying`);
    }
  };

  // A look without the lock on each change of the journal; a lease that seems gone is confirmed
  // by a renewal under the lock before the run is stopped (a torn read proves nothing).
  let pending: NodeJS.Timeout | null = null;
  const check = async () => {
    pending = null;
    if (stopped || lost) return;
    const swapped = replaced();
    if (swapped !== null) return lose(ids[0]!, `the journal ${journal} ${swapped}`);
    try {
      const active = new Set(foldLeases((await readJournal(journal)).events, now().getTime()).map((l) => l.id));
      if (ids.some((id) => !active.has(id))) await renew();
    } catch {
      // The next renewal will tell.
    }
  };
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(path.dirname(journal), { persistent: false }, (_event, name) => {
      if (name !== null && name !== path.basename(journal)) return;
      pending ??= setTimeout(() => void check(), 100);
    });
    watcher.on('error', () => watcher?.close());
  } catch {
    // No watching here (inotify limits…): the renewals still find a loss.
  }
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
      if (pending) clearTimeout(pending);
      watcher?.close();
    },
  };
}
