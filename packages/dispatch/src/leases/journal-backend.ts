/**
 * The journal as a lease backend: the lease table of one machine, `.waves/leases.jsonl`
 * (lease-journal.ts does the locking, folding and appending). Besides the interface it watches
 * its directory, so that a loss is seen when it happens, and it knows the file it was opened on: a
 * journal replaced by anything else — a FIFO, a link, a folder, another file — no longer holds the
 * leases it held (another orchestrator may be reading an empty journal there). A compaction's new
 * generation, renamed into place, is the journal still: whether it kept a lease, renewals say.
 */
import { closeSync, constants, lstatSync, openSync, readSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { canonicalLane, MAX_JOURNAL_HEADER_BYTES } from '@waves/planner';
import type { ChangeResult, GcResult, LeaseBackend, LeaseListing } from './lease-backend.js';
import { acquireLeases, compactLeaseJournal, headerGen, listLeases, releaseLease, renewLease } from './lease-journal.js';

export function journalBackend(journal: string, now: () => Date): LeaseBackend {
  const identityOf = () => {
    try {
      const info = lstatSync(journal);
      return { dev: info.dev, ino: info.ino };
    } catch {
      return null;
    }
  };
  const identity = identityOf();
  return {
    kind: 'journal',
    where: `the lease journal ${journal}`,
    async list(): Promise<LeaseListing> {
      const { leases, corrupt } = await listLeases(journal, now);
      return {
        leases,
        warnings: corrupt.map((line) =>
          line.reason === 'void'
            ? `${path.basename(journal)} line ${line.line}: written where the journal no longer ended, or for another generation of it — by a process whose lock was taken over (it was stalled), or by an older waves still running beside this one — void`
            : line.reason === 'partial'
              ? `${path.basename(journal)} line ${line.line}: one lane of an acquisition whose other lines did not all land (cut short), void`
              : `${path.basename(journal)} line ${line.line}: not a lease event (torn or edited), skipped`,
        ),
      };
    },
    acquire(lanes, request) {
      return acquireLeases(journal, lanes.map(canonicalLane), { holder: request.holder, ttlMs: request.ttlMs, now, ...(request.rules ? { rules: request.rules } : {}) });
    },
    async release(ids) {
      const results: ChangeResult[] = [];
      for (const id of ids) results.push(await releaseLease(journal, id, now));
      return results;
    },
    async renew(ids, ttlMs) {
      const results: ChangeResult[] = [];
      for (const id of ids) results.push(await renewLease(journal, id, ttlMs, now));
      return results;
    },
    async gc(): Promise<GcResult> {
      // The fold already ignores expired leases: gc rewrites the journal with only the live ones.
      return { dropped: [], foreign: [], compacted: await compactLeaseJournal(journal, now) };
    },
    watch(onChange) {
      let watcher: FSWatcher | null = null;
      try {
        watcher = watch(path.dirname(journal), { persistent: false }, (_event, name) => {
          if (name === null || name === path.basename(journal)) onChange();
        });
        watcher.on('error', () => watcher?.close());
      } catch {
        // No watching here (inotify limits…): the renewals still find a loss.
      }
      return () => watcher?.close();
    },
    replaced() {
      if (identity === null) return null;
      let info;
      try {
        info = lstatSync(journal);
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : `the journal ${journal} cannot be looked at (${(error as NodeJS.ErrnoException).code})`;
      }
      const was = (what: string) => `the journal ${journal} was replaced by ${what}`;
      if (info.isSymbolicLink()) return was('a symbolic link');
      if (info.isFIFO()) return was('a FIFO');
      if (info.isDirectory()) return was('a folder');
      if (!info.isFile()) return was('a socket or device');
      // A compaction renames a new generation into place: a file whose first line names one is the journal still (its leases are checked by the renewals).
      if ((info.dev !== identity.dev || info.ino !== identity.ino) && !isCompacted(journal)) return was('another file');
      return null;
    },
  };
}

/** Whether the regular file at `journal` begins with a compaction's header line (never through a link, never waiting on a FIFO). */
function isCompacted(journal: string): boolean {
  let fd: number | null = null;
  try {
    fd = openSync(journal, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    const head = Buffer.alloc(MAX_JOURNAL_HEADER_BYTES + 1);
    const read = readSync(fd, head, 0, head.length, 0);
    return headerGen(head.subarray(0, read)) !== null;
  } catch {
    return false;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
