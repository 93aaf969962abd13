/**
 * Stops every process of a run: its process group (the agent leads one of its own) and, on
 * Linux, every process whose environment carries the run's marker (`WAVES_RUN=<id>`), which finds
 * one that left the group with setsid. SIGTERM first, then — after the grace, for what is still
 * there — SIGKILL, and then it checks that nothing is left: a group is gone when no live process
 * belongs to it (`kill(-pgid, 0)` fails with ESRCH where there is no /proc).
 *
 * A process group read back from a run record is not trusted: an agent can rewrite its record.
 * Such a group is signalled only when it is not pid 0 or 1, not waves' own group, and (on Linux)
 * every live member carries the run's marker; otherwise it is refused, and only the marked
 * processes are stopped, one by one.
 *
 * On Linux a descendant tracker (track-descendants.ts) adds the processes that left both the group
 * and the marker behind: the supervisor's own while it runs, or one resumed from the sealed
 * record's `tracked`. It looks again at each look here, so a process forked meanwhile is found too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { markerEntry, RUN_MARKER } from './agent-env.js';
import { commandLine, environHas, listProcesses, ownProcessGroup } from './process-table.js';
import type { DescendantTracker } from './track-descendants.js';

export const DEFAULT_GRACE_MS = 5_000;
/** How long SIGKILL may take to show: a process in uninterruptible sleep dies when it wakes. */
const KILL_WAIT_MS = 3_000;
const POLL_MS = 100;

export interface TreeTarget {
  /** The process group to stop, or null. */
  pgid: number | null;
  /** The run id its processes carry as `WAVES_RUN`, or null. */
  runId: string | null;
  /** True when waves started the group itself (the supervisor's own child); false when read from a record. */
  trusted: boolean;
  /** The run's descendant tracker (Linux), or null. */
  tracker?: DescendantTracker | null;
}

export interface TreeStop {
  /** Why the group was not signalled, or null. */
  refused: string | null;
  /** Processes still there after SIGKILL (or, off Linux, a group that would not go). */
  survivors: number[];
}

/**
 * Why a process group read from a record must not be signalled, or null when it may be. A group
 * with no live member is not refused: there is nothing to signal.
 */
export function groupRefusal(pgid: number, runId: string | null): string | null {
  if (!Number.isSafeInteger(pgid) || pgid <= 1) return `pid ${pgid} is not a process group waves started`;
  if (pgid === process.pid || pgid === ownProcessGroup()) return 'it is the process group of waves itself';
  const table = listProcesses();
  if (table === null) return null;
  const entry = runId === null ? null : markerEntry(runId);
  // The recorded pid itself, group leader or not: a live process there must be the run's.
  const named = table.find((p) => p.pid === pgid);
  if (named && (entry === null || !environHas(named.pid, entry))) return `its process ${named.pid} does not carry ${entry ?? 'a WAVES_RUN marker'}`;
  for (const member of table.filter((p) => p.pgid === pgid)) {
    if (member.pid === process.pid) return 'waves itself belongs to it';
    if (entry === null || !environHas(member.pid, entry)) return `its process ${member.pid} does not carry ${entry ?? 'a WAVES_RUN marker'}`;
  }
  return null;
}

/**
 * The live processes whose marker (`WAVES_RUN=…`) starts with `prefix`, with the marker's value
 * (waves itself left out), wherever they are; empty where /proc cannot tell.
 */
export function processesMarkedWith(prefix: string): { pid: number; marker: string }[] {
  const table = listProcesses();
  if (table === null) return [];
  const entry = `${markerEntry('')}${prefix}`;
  const out: { pid: number; marker: string }[] = [];
  for (const p of table) {
    if (p.pid <= 1 || p.pid === process.pid) continue;
    try {
      const found = readFileSync(`/proc/${p.pid}/environ`, 'latin1').split('\0').find((e) => e.startsWith(entry));
      if (found !== undefined) out.push({ pid: p.pid, marker: found.slice(markerEntry('').length) });
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

/** The live processes carrying a run's marker (waves itself left out), or null where that cannot be known (no /proc). */
export function markedProcesses(runId: string): number[] | null {
  const table = listProcesses();
  if (table === null) return null;
  const entry = markerEntry(runId);
  return table.filter((p) => p.pid > 1 && p.pid !== process.pid && environHas(p.pid, entry)).map((p) => p.pid);
}

interface Sighting {
  /** Whether the group still has live members (and may be signalled). */
  group: boolean;
  /** Live marked or tracked processes (outside the group or in it). */
  marked: number[];
}

export async function stopProcessTree(target: TreeTarget, options: { graceMs?: number } = {}): Promise<TreeStop> {
  const grace = options.graceMs ?? DEFAULT_GRACE_MS;
  let refused: string | null = null;
  const entry = target.runId === null ? null : markerEntry(target.runId);
  const look = (): Sighting => {
    const table = listProcesses();
    let group = false;
    if (target.pgid !== null && refused === null) {
      if (!target.trusted) refused = groupRefusal(target.pgid, target.runId);
      if (refused === null && target.pgid > 1) group = table === null ? groupExists(target.pgid) : table.some((p) => p.pgid === target.pgid);
    }
    // Never waves itself: a `waves stop` started from an agent's shell carries that run's marker too.
    const own = ownProcessGroup();
    const mayStop = (p: { pid: number; pgid: number }) => p.pid > 1 && p.pid !== process.pid && p.pgid !== own;
    // Marked, but never another run's supervisor (a dispatch started inside the agent gives its
    // supervisors the agent's environment, marker included).
    const marked = table === null || entry === null ? [] : table.filter((p) => mayStop(p) && environHas(p.pid, entry) && !supervisorOfAnother(p.pid, target.runId)).map((p) => p.pid);
    if (table !== null && target.tracker) {
      const tracked = new Set(target.tracker.observe(table));
      for (const p of table) if (tracked.has(p.pid) && mayStop(p) && !marked.includes(p.pid) && !anotherRuns(p.pid, target.runId)) marked.push(p.pid);
    }
    return { group, marked };
  };
  const send = (seen: Sighting, signal: NodeJS.Signals) => {
    if (seen.group) signalQuietly(-target.pgid!, signal);
    for (const pid of seen.marked) signalQuietly(pid, signal);
  };
  const empty = (seen: Sighting) => !seen.group && seen.marked.length === 0;

  let seen = look();
  if (empty(seen)) return { refused, survivors: [] };
  send(seen, 'SIGTERM');
  const termDeadline = Date.now() + grace;
  while (Date.now() < termDeadline) {
    await sleep(POLL_MS);
    seen = look();
    if (empty(seen)) return { refused, survivors: [] };
  }
  const killDeadline = Date.now() + KILL_WAIT_MS;
  for (;;) {
    // Again at each look: a process may have forked since the last one.
    send(seen, 'SIGKILL');
    await sleep(POLL_MS);
    seen = look();
    if (empty(seen)) return { refused, survivors: [] };
    if (Date.now() > killDeadline) break;
  }
  return { refused, survivors: [...(seen.group ? [target.pgid!] : []), ...seen.marked] };
}

/** Whether a process is the supervisor of another run (`waves __run …/<other id>.json`). */
function supervisorOfAnother(pid: number, runId: string | null): boolean {
  const argv = commandLine(pid);
  const at = argv?.indexOf('__run') ?? -1;
  return argv !== null && at >= 0 && argv[at + 1] !== undefined && path.basename(argv[at + 1]!) !== `${runId}.json`;
}

/**
 * Whether a process is another run's or waves' own: a supervisor of another run (`waves __run
 * …/<other id>.json`), a process carrying another run's `WAVES_RUN` marker (its agent), or a
 * `waves dispatch` that does not carry this run's marker (a dispatcher the person started). Never
 * stopped as this run's, whatever tied it to this one (an agent may tag any process of the user:
 * track-descendants.ts).
 */
export function anotherRuns(pid: number, runId: string | null): boolean {
  let entries: string[] = [];
  try {
    entries = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
  } catch {
    // gone, or not readable: the argv alone decides
  }
  const mine = runId !== null && entries.includes(markerEntry(runId));
  if (entries.some((e) => e.startsWith(`${RUN_MARKER}=`)) && !mine) return true;
  const argv = commandLine(pid);
  if (argv !== null) {
    if (supervisorOfAnother(pid, runId)) return true;
    const bin = argv.findIndex((a) => /(^|\/)waves(\.js)?$/.test(a));
    if (bin >= 0 && argv[bin + 1] === 'dispatch' && !mine) return true;
  }
  return false;
}

/** Off Linux: whether any process is in the group (a zombie counts; nothing better is known). */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signalQuietly(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // Gone in between, or not ours to signal: the next look says which.
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
