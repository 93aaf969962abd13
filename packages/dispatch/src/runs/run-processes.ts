/**
 * The processes of a run still alive after it settled: the members of its process group (the
 * agent led one of its own) and, on Linux, every process whose environment carries the run's
 * `WAVES_RUN` marker (one that left the group with setsid). The supervisor stopped them all when
 * the run ended; one found now escaped or was started since, and may still be writing in the work
 * tree — a revert or a commit then races it, so the harvest asks a person first.
 *
 * A process that left the group and cleared its environment (`env -i setsid …`) carries neither:
 * the supervisor's descendant tracker saw it, and the record's `tracked` (the sealed record's,
 * as the harvest passes it) finds it again here.
 */
import { markerEntry } from './agent-env.js';
import { environHas, isRunning, listProcesses, ownProcessGroup } from './process-table.js';
import type { RunRecord } from './run-record.js';
import { DescendantTracker } from './track-descendants.js';

export function liveProcessesOf(record: Pick<RunRecord, 'id' | 'pid' | 'tracked'>): number[] {
  const group = record.pid !== null && Number.isSafeInteger(record.pid) && record.pid > 1 ? record.pid : null;
  const table = listProcesses();
  if (table === null) return group !== null && groupAlive(group) ? [group] : [];
  const own = ownProcessGroup();
  const entry = markerEntry(record.id);
  const tracked = new Set(record.tracked ? (DescendantTracker.fromRecord(record.tracked, entry)?.observe(table) ?? []) : []);
  return table
    .filter((p) => p.pid > 1 && p.pid !== process.pid && p.pgid !== own && ((group !== null && p.pgid === group) || tracked.has(p.pid) || environHas(p.pid, entry)))
    .filter((p) => isRunning(p.pid))
    .map((p) => p.pid)
    .sort((a, b) => a - b);
}

/** Off Linux: whether any process is in the group. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
