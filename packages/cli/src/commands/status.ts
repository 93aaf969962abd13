/**
 * `waves status`: every agent run of the repository from its record — status, duration, issue,
 * log — with the runs whose processes vanished without settling shown as stale (a starting run
 * too, once the dispatch starting it is gone); `--reap` settles those and releases their leases —
 * every lease held in the run's name, listed in its record or not. Leases held in the name of a
 * run that has no record at all (orphans) are shown too, and `--reap` releases them once no
 * process of that run is left.
 */
import { readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import {
  committedBranchProblem,
  isRunning,
  isSameProcess,
  isStopped,
  LeaseRemoteError,
  leasesByRun,
  leaseStoreOf,
  markedProcesses,
  runStrays,
  ticksAt,
  openLeaseBackend,
  readRecords,
  readSeals,
  releaseOwnLeases,
  removeDeadSocket,
  cloneTag,
  RUNS_DIR,
  TERMINAL,
  viewStatus,
  writeRecord,
  type LeaseBackend,
  type LeaseStore,
  type RunRecord,
} from '@waves/dispatch';
import { parseCommandArgs, renderFlags, type FlagSpecs } from '../args.js';
import { configuredLeases } from '../config/lease-store.js';
import { loadConfig } from '../config/load-config.js';
import type { CliIo } from '../io.js';
import { duration, renderRuns, type OrphanRow } from '../render/runs-table.js';
import { safeText } from '../render/safe-text.js';
import { rootFlag } from '../root-flag.js';

export const STATUS_FLAGS: FlagSpecs = {
  root: { type: 'string', value: 'DIR', description: 'Repository whose runs to show', default: 'the current directory' },
  json: { type: 'boolean', description: 'Print the runs as JSON' },
  reap: { type: 'boolean', description: 'Settle stale runs (record them failed) and release their leases, and the leases of orphans' },
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export const STATUS_HELP = `Usage: waves status [--root DIR] [--json] [--reap]

Lists every agent run under .dispatch-runs/: issue, status (starting, running, succeeded, failed,
timed_out, cancelled — or stale, when its processes are gone and it never settled, or it was
starting and the dispatch starting it is gone), duration and log. --reap settles the stale ones as
failed and releases every lease held in their name. A run whose agent still runs after its
supervisor died (kill -9) or while its supervisor is stopped shows as running, with a line on
stderr: waves stop stops it. Leases held in the name of a run that has no record (left by an
older waves, or a record deleted) show as orphan, on stderr and as a row of the table; --reap
releases them once no process of that run is left (Linux: none carries its WAVES_RUN).

Options:
${renderFlags(STATUS_FLAGS)}
`;

/** The live processes of a run its record cannot show as its agent: marked with its id, or tracked (sealed), by pid and start time. */
async function stillRunning(file: string, record: RunRecord): Promise<number[]> {
  const marked = markedProcesses(record.id) ?? [];
  const tracked = (record.tracked?.pids ?? []).filter((p) => isSameProcess({ pid: p.pid, start: p.start })).map((p) => p.pid);
  // And what the supervisor's last sweep would have found in the run's tree: a writer with no
  // marker, started before the tracker's list reached the seal (red team E08).
  const since = ticksAt(Date.parse(record.startedAt));
  const strays = since === null ? [] : (await runStrays(file, record, record.id, since)).map((s) => s.pid);
  return [...new Set([...marked, ...tracked, ...strays])].sort((a, b) => a - b);
}

export async function runStatus(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('status', STATUS_FLAGS, argv);
  if (values.help) {
    io.stdout(STATUS_HELP);
    return 0;
  }
  const { root } = await rootFlag(values, io);
  const loaded = await loadConfig(root, undefined, io.cwd);
  const now = () => io.now();
  const configured = await configuredLeases(loaded, root, now);
  // Each store once: the config's, and those the records name (a record keeps the store of its leases).
  const backends = new Map<string, LeaseBackend>([[JSON.stringify(configured.store), configured.backend]]);
  const backendOf = (store: LeaseStore) => {
    const key = JSON.stringify(store);
    if (!backends.has(key)) backends.set(key, openLeaseBackend(store, now));
    return backends.get(key)!;
  };
  const runsDir = path.join(root, RUNS_DIR);
  const clone = await cloneTag(root);
  const listed = await readRecords(runsDir);
  const { unreadable } = listed;
  for (const file of unreadable) io.stderr(`waves: ${path.relative(root, file)} is not a run record, skipped\n`);
  // A copy with no seal is no record waves wrote, or one whose seal is gone (an agent can write the
  // runs folder): shown, but its verdict, its lease store and its lease ids are never taken from it
  // — reaping it would release whatever leases it names, another run's among them.
  const unsealed = new Set(listed.records.filter((r) => !r.sealed).map((r) => r.file));
  for (const file of unsealed) io.stderr(`waves: ${path.relative(root, file)} has no sealed copy (not written by waves, or its seal is gone): its verdict is not shown and it is not reaped; waves harvest says what it needs\n`);
  const records = listed.records.map((r) => (r.sealed ? r : { ...r, record: { ...r.record, witness: undefined, leaseStore: configured.store, leaseIds: [], leaseEpochs: {} } }));
  const rows = [];
  // Oldest first.
  const ordered = [...records].sort((a, b) => Date.parse(a.record.startedAt) - Date.parse(b.record.startedAt) || a.record.id.localeCompare(b.record.id));
  for (const { file, record } of ordered) {
    let view = viewStatus(record);
    let current = record;
    // A run whose supervisor and agent are gone may still have processes of its own (a daemon its
    // agent started, marked with the run's id or found by the tracker): those still write in its
    // lanes, so its leases stay until `waves stop` has stopped them.
    const lingering = view === 'stale' && values.reap && !unsealed.has(file) ? await stillRunning(file, record) : [];
    if (lingering.length > 0) {
      io.stderr(`waves: ${record.id} (#${record.issue.number}) has lost its supervisor and agent, but its process(es) ${lingering.join(', ')} still run: not reaped; waves stop --run ${record.id} stops them\n`);
    } else if (view === 'stale' && values.reap && !unsealed.has(file)) {
      current = { ...record, status: 'failed', reason: 'stale: its processes were gone before it settled (reaped)', endedAt: io.now().toISOString() };
      await writeRecord(file, current);
      const own = backendOf(leaseStoreOf(record));
      const released = new Set<string>();
      if (record.leaseIds.length > 0) {
        const live = new Set((await own.list()).leases.map((l) => l.id));
        await own.release(record.leaseIds);
        for (const id of record.leaseIds) if (live.has(id)) released.add(id);
      }
      // Also those its record does not list (the dispatch was killed right after it took them).
      const id = path.basename(file, '.json');
      for (const backend of new Set([own, configured.backend])) for (const lease of await releaseOwnLeases(backend, id, clone)) released.add(lease.id);
      // A supervisor killed while it finished the log leaves its temporary copy: gone with the run.
      for (const name of await readdir(runsDir).catch(() => [] as string[])) {
        if (name.startsWith(`${record.id}.log.`) && name.endsWith('.redact.tmp')) await unlink(path.join(runsDir, name)).catch(() => undefined);
      }
      // Its dead supervisor's fence socket, which nobody answers any more.
      await removeDeadSocket(record.id);
      io.stderr(`waves: reaped ${record.id} (#${record.issue.number}); ${released.size > 0 ? `its ${released.size} lease(s) are released` : 'it held no lease (nothing released)'}\n`);
      view = 'failed';
    }
    // Its agent runs on with nobody to enforce the timeout, keep the leases or settle the record.
    if ((view === 'running' || view === 'starting') && record.supervisorPid !== null && !isRunning(record.supervisorPid)) {
      io.stderr(`waves: ${record.id} (#${record.issue.number}) has lost its supervisor; waves stop --run ${record.id} stops it\n`);
    } else if ((view === 'running' || view === 'starting') && record.supervisorPid !== null && isStopped(record.supervisorPid)) {
      io.stderr(`waves: ${record.id} (#${record.issue.number}) has a stopped supervisor (pid ${record.supervisorPid}, SIGSTOP); waves stop --run ${record.id} stops it\n`);
    }
    rows.push({ record: current, view });
  }
  const orphans = await orphanLeases(runsDir, clone, configured.backend, records.map((r) => r.file).concat(unreadable), Boolean(values.reap), now, io);
  // A committed run's branch must still be at the commit waves sealed: another run's agent can move it.
  const seals = await readSeals(runsDir).catch(() => new Map<string, never>());
  const sealedById = new Map([...seals.values()].map((r) => [r.id, r] as const));
  const moved = new Map<string, string>();
  for (const { record } of rows) {
    const sealed = sealedById.get(record.id);
    if (!sealed?.witness?.commit) continue;
    const problem = await committedBranchProblem(root, sealed, sealedById.values()).catch(() => null);
    if (problem === null) continue;
    moved.set(record.id, problem);
    io.stderr(`waves: ${record.id} (#${record.issue.number}) needs a person: ${safeText(problem)}\n`);
  }
  const shown = rows.map((row) => {
    const problem = moved.get(row.record.id);
    const witness = row.record.witness;
    if (problem === undefined || !witness) return row;
    // The table says so instead of "committed": the commit on record is not what the branch holds.
    return { ...row, record: { ...row.record, witness: { ...witness, commit: null, status: 'needs_person' as const, reasons: [...witness.reasons, problem] } } };
  });
  // A settled run whose leases are still held: its release failed (a lock planted in the journal's place…).
  const heldNow = new Map<string, string>();
  for (const record of rows.map((r) => r.record)) backendOf(leaseStoreOf(record));
  for (const backend of backends.values()) {
    const listed = await backend.list().catch((error: unknown) => {
      // A remote that does not answer: which runs still hold leases there cannot be told now. A
      // journal that is not one (a FIFO, a folder…) is the person's to fix: one line, exit 2.
      if (!(error instanceof LeaseRemoteError)) throw error;
      io.stderr(`waves: ${safeText((error as Error).message.split('\n')[0] ?? '')}; leases there not checked\n`);
      return { leases: [] };
    });
    for (const lease of listed.leases) heldNow.set(lease.id, lease.lane);
  }
  for (const { record, view } of rows) {
    if (!(TERMINAL as readonly string[]).includes(view)) continue;
    const held = record.leaseIds.filter((id) => heldNow.has(id));
    if (held.length === 0) continue;
    const lanes = held.map((id) => safeText(heldNow.get(id)!));
    io.stderr(`waves: ${record.id} (#${record.issue.number}) ended (${view}) but its leases on ${lanes.join(', ')} were not released; waves lease release --force ${held.join(' ')} frees them\n`);
  }
  if (values.json) {
    io.stdout(
      `${JSON.stringify(rows.map(({ record, view }) => ({ ...record, status: view, recorded: record.status, duration: duration(record), ...(moved.has(record.id) ? { branchProblem: moved.get(record.id) } : {}) })), null, 2)}\n`,
    );
  } else io.stdout(renderRuns(shown, { root, orphans }));
  return 0;
}

/**
 * Leases held in the name of a run of this clone (`<holder>/<clone>/resolve-N-…`; another clone's
 * runs have their records there) that has no record nor seal here: an older
 * waves killed between its leases and its record, or a record deleted. Each is reported; with
 * `reap`, released once no process of that run is left. Returns those still held.
 */
async function orphanLeases(runsDir: string, clone: string, backend: LeaseBackend, files: readonly string[], reap: boolean, now: () => Date, io: CliIo): Promise<OrphanRow[]> {
  const { leases } = await backend.list().catch((error: unknown) => {
    if (!(error instanceof LeaseRemoteError)) throw error;
    io.stderr(`waves: ${safeText((error as Error).message.split('\n')[0] ?? '')}; orphan leases not checked\n`);
    return { leases: [] };
  });
  const byRun = leasesByRun(leases, clone);
  if (byRun.size === 0) return [];
  const known = new Set(files.map((f) => path.basename(f, '.json')));
  for (const file of (await readSeals(runsDir).catch(() => new Map())).keys()) known.add(path.basename(file, '.json'));
  const rows: OrphanRow[] = [];
  for (const [run, held] of byRun) {
    if (known.has(run)) continue;
    const lanes = held.map((l) => safeText(l.lane));
    const marked = markedProcesses(run);
    if (reap && marked !== null && marked.length === 0) {
      await releaseOwnLeases(backend, run, clone);
      io.stderr(`waves: released the leases of ${run} (${lanes.join(', ')}): held in the name of a run that has no record and no process left\n`);
      continue;
    }
    const next =
      marked === null
        ? 'whether its processes still run cannot be told here (no /proc): waves lease release --force ID frees a lease'
        : marked.length > 0
          ? `its process(es) ${marked.join(', ')} still run; once they are stopped, waves status --reap releases them`
          : 'waves status --reap releases them';
    io.stderr(`waves: ${run} has no record but holds leases on ${lanes.join(', ')} (orphan); ${next}\n`);
    rows.push({ run, lanes, until: held.map((l) => l.until).sort().at(-1)! });
  }
  return rows;
}
