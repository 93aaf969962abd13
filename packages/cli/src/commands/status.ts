/**
 * `waves status`: every agent run of the repository from its record — status, duration, issue,
 * log — with the runs whose processes vanished without settling shown as stale; `--reap`
 * settles those and releases their leases.
 */
import path from 'node:path';
import { isRunning, readRecords, releaseLeases, RUNS_DIR, viewStatus, writeRecord } from '@waves/dispatch';
import { parseCommandArgs, renderFlags, type FlagSpecs } from '../args.js';
import type { CliIo } from '../io.js';
import { duration, renderRuns } from '../render/runs-table.js';
import { rootFlag } from '../root-flag.js';

export const STATUS_FLAGS: FlagSpecs = {
  root: { type: 'string', value: 'DIR', description: 'Repository whose runs to show', default: 'the current directory' },
  json: { type: 'boolean', description: 'Print the runs as JSON' },
  reap: { type: 'boolean', description: 'Settle stale runs (record them failed) and release their leases' },
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export const STATUS_HELP = `Usage: waves status [--root DIR] [--json] [--reap]

Lists every agent run under .dispatch-runs/: issue, status (starting, running, succeeded, failed,
timed_out, cancelled — or stale, when its processes are gone and it never settled), duration
and log. --reap settles the stale ones as failed and releases their leases. A run whose agent
still runs after its supervisor died (kill -9) shows as running, with a line on stderr: waves
stop stops it.

Options:
${renderFlags(STATUS_FLAGS)}
`;

export async function runStatus(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('status', STATUS_FLAGS, argv);
  if (values.help) {
    io.stdout(STATUS_HELP);
    return 0;
  }
  const { root } = await rootFlag(values, io);
  const { records, unreadable } = await readRecords(path.join(root, RUNS_DIR));
  for (const file of unreadable) io.stderr(`waves: ${path.relative(root, file)} is not a run record, skipped\n`);
  const rows = [];
  // Oldest first.
  const ordered = [...records].sort((a, b) => Date.parse(a.record.startedAt) - Date.parse(b.record.startedAt) || a.record.id.localeCompare(b.record.id));
  for (const { file, record } of ordered) {
    let view = viewStatus(record);
    let current = record;
    if (view === 'stale' && values.reap) {
      current = { ...record, status: 'failed', reason: 'stale: its processes were gone before it settled (reaped)', endedAt: io.now().toISOString() };
      await writeRecord(file, current);
      await releaseLeases(record.journal, record.leaseIds, () => io.now());
      io.stderr(`waves: reaped ${record.id} (#${record.issue.number}); its leases are released\n`);
      view = 'failed';
    }
    // Its agent runs on with nobody to enforce the timeout, keep the leases or settle the record.
    if ((view === 'running' || view === 'starting') && record.supervisorPid !== null && !isRunning(record.supervisorPid)) {
      io.stderr(`waves: ${record.id} (#${record.issue.number}) has lost its supervisor; waves stop --run ${record.id} stops it\n`);
    }
    rows.push({ record: current, view });
  }
  if (values.json) {
    io.stdout(`${JSON.stringify(rows.map(({ record, view }) => ({ ...record, status: view, recorded: record.status, duration: duration(record) })), null, 2)}\n`);
  } else io.stdout(renderRuns(rows, { root }));
  return 0;
}
