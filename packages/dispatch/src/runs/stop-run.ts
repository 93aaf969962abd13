/**
 * Stops one run from outside its supervisor — `waves stop`, or a foreground dispatch whose
 * supervisor died — and settles it. A live supervisor is asked first (SIGTERM): it knows its
 * agent for certain, and settles the record itself. Otherwise waves stops the run's processes
 * from what the record says, which it does not trust (an agent can rewrite its record): the
 * recorded process group is checked before any signal (see kill-tree), the run's marker finds
 * its processes wherever they went, the sealed record's `tracked` (what the supervisor's tracker
 * found) finds those that dropped the marker too, and only leases held in the run's own name are
 * released. A supervisor that is stopped (SIGSTOP) cannot answer: it is killed, not asked.
 */
import path from 'node:path';
import { DEFAULT_GRACE_MS, stopProcessTree } from './kill-tree.js';
import { commandLine, isRunning, isStopped } from './process-table.js';
import { openLeaseBackend, type LeaseStore } from '../leases/open-lease-backend.js';
import { cloneTag, releaseOwnLeases } from './run-leases.js';
import { removeDeadSocket } from '../fence/fence-server.js';
import { readSeal, readTrustedRecord, TERMINAL, writeRecord, type RunRecord } from './run-record.js';
import { markerEntry } from './agent-env.js';
import { DescendantTracker } from './track-descendants.js';
import { runStrays, stopStrays, ticksAt } from './stray-processes.js';

export interface StopRunOptions {
  /** The lease journal of the repository (not the record's say). */
  journal: string;
  /** Where the repository's leases are (default: that journal). */
  leaseStore?: LeaseStore;
  now: () => Date;
  graceMs?: number;
  /** How waves settles the record when it settles it itself. */
  status: 'cancelled' | 'failed' | 'timed_out';
  reason: string;
  /** Ask a live supervisor to stop its run first (false when it is known dead). */
  askSupervisor: boolean;
}

export interface StopOutcome {
  file: string;
  record: RunRecord;
  /** `settled`: it had ended already; `supervisor`: its supervisor stopped it; `stopped`: waves did. */
  by: 'settled' | 'supervisor' | 'waves';
  /** Why the recorded process group was not signalled, or null. */
  refused: string | null;
  /** Processes still there after SIGKILL. */
  survivors: number[];
  /** When waves settled it: the leases it released in the run's name (none: the run held none, or a forged record named a run that never took any). Null when its supervisor or an earlier settle did. */
  released: number | null;
}

const isTerminal = (record: RunRecord) => (TERMINAL as readonly string[]).includes(record.status);

export async function stopRun(file: string, options: StopRunOptions): Promise<StopOutcome> {
  const grace = options.graceMs ?? DEFAULT_GRACE_MS;
  const runId = path.basename(file, '.json');
  let record = await readTrustedRecord(file);
  if (isTerminal(record)) return { file, record, by: 'settled', refused: null, survivors: [], released: null };

  const supervisor = record.supervisorPid;
  // A stopped supervisor would hold the signal until someone continues it: it goes, and waves does its work.
  if (supervisor !== null && isStopped(supervisor) && isSupervisorOf(supervisor, runId)) signalQuietly(supervisor, 'SIGKILL');
  else if (options.askSupervisor && supervisor !== null && isSupervisorOf(supervisor, runId)) {
    signalQuietly(supervisor, 'SIGTERM');
    // Its agent's grace, the check that all is gone, the record and the leases.
    const until = Date.now() + grace + 10_000;
    while (isRunning(supervisor) && Date.now() < until) await sleep(50);
    if (isRunning(supervisor) && isSupervisorOf(supervisor, runId)) signalQuietly(supervisor, 'SIGKILL');
    record = await readTrustedRecord(file);
    if (isTerminal(record)) return { file, record, by: 'supervisor', refused: null, survivors: [], released: null };
  }

  // What the tracker found, from the seal only: a copy an agent wrote must never name processes to stop.
  const sealed = await readSeal(file).catch(() => null);
  const tracker = sealed?.tracked ? DescendantTracker.fromRecord(sealed.tracked, markerEntry(runId)) : null;
  const tree = await stopProcessTree({ pgid: record.pid, runId, trusted: false, tracker }, { graceMs: grace });
  // What escaped the tracker and its marker (a daemon started with env -i just before the agent
  // killed its supervisor, the tracker's list not yet saved): the supervisor's last sweep, here.
  const since = ticksAt(Date.parse(record.startedAt));
  const strays = since === null ? [] : await runStrays(file, record, runId, since);
  if (strays.length > 0) tree.survivors.push(...(await stopStrays(strays, grace)));
  // The supervisor may have settled it meanwhile; its word is better than ours.
  const latest = await readTrustedRecord(file).catch(() => record);
  if (isTerminal(latest)) return { file, record: latest, by: 'supervisor', refused: tree.refused, survivors: tree.survivors, released: null };
  let reason = options.reason;
  if (tree.refused) reason += `; its recorded process group ${record.pid} was not signalled (${tree.refused})`;
  if (tree.survivors.length > 0) reason += `; pid(s) ${tree.survivors.join(', ')} still there after SIGKILL`;
  const settled: RunRecord = { ...latest, status: options.status, reason, endedAt: options.now().toISOString() };
  await writeRecord(file, settled);
  const released = await releaseOwnLeases(openLeaseBackend(options.leaseStore ?? { backend: 'journal', journal: options.journal }, options.now), runId, await cloneTag(path.dirname(path.dirname(file))));
  // Its dead supervisor's fence socket, which nobody answers any more.
  await removeDeadSocket(runId);
  return { file, record: settled, by: 'waves', refused: tree.refused, survivors: tree.survivors, released: released.length };
}

/** Whether a pid is the supervisor of this run: `waves __run …/<run id>.json`, not any process a record names. */
function isSupervisorOf(pid: number, runId: string): boolean {
  const argv = commandLine(pid);
  if (!argv) return false;
  const at = argv.indexOf('__run');
  return at >= 0 && path.basename(argv[at + 1] ?? '') === `${runId}.json`;
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone meanwhile
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
