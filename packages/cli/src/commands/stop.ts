/**
 * `waves stop`: stops runs that are still going — with their supervisor, or without one (the
 * supervisors and dispatch killed, the machine's processes left behind) — and settles them
 * cancelled, releasing their leases. The pids come from run records, which agents can rewrite:
 * what is checked before a signal is in stopRun and stopProcessTree.
 */
import path from 'node:path';
import { configuredLeases } from '../config/lease-store.js';
import { readRecords, RUNS_DIR, stopRun, TERMINAL, type RunRecord } from '@waves/dispatch';
import { intFlag, parseCommandArgs, renderFlags, stringFlag, type FlagSpecs } from '../args.js';
import { loadConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { safeText } from '../render/safe-text.js';
import type { CliIo } from '../io.js';
import { killGraceMs } from '../kill-grace.js';
import { renderStops, stopsJson } from '../render/stop-report.js';
import { rootFlag } from '../root-flag.js';

export const STOP_FLAGS: FlagSpecs = {
  run: { type: 'string', value: 'ID', description: 'Stop this run (its id, as waves status shows it)' },
  wave: { type: 'string', value: 'K', description: 'Stop every run of wave K still going' },
  all: { type: 'boolean', description: 'Stop every run still going' },
  root: { type: 'string', value: 'DIR', description: 'Repository whose runs to stop', default: 'the current directory' },
  json: { type: 'boolean', description: 'Print what was stopped as JSON' },
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export const STOP_HELP = `Usage: waves stop [--run ID | --wave K | --all] [--root DIR] [--json]

Stops agent runs that are still going (starting, running, or stale with processes left), each
one the same way:
  1. its supervisor, when it is alive, is asked to stop the run (SIGTERM): it stops the agent's
     whole process group (SIGTERM, 5 s of grace, SIGKILL), checks it is gone, records the run
     cancelled and releases its leases;
  2. otherwise (the supervisor was killed, is stopped, or did not answer) waves does it itself:
     SIGTERM, the grace, SIGKILL to the run's recorded process group, to every process marked with
     the run's id and (Linux) to every process the supervisor's tracker recorded in the sealed
     record (each pid only with its recorded start time), a check that none is left, then the
     record settled cancelled with the reason, and every lease held in the run's name released
     (a run the dispatch was killed while starting too).
Use it after killing waves dispatch and its supervisors (kill -9, a crashed terminal): their
agents keep running, and waves status shows them running, until waves stop ends them.

Safety: a run record lives in the repository and an agent can rewrite it, so a recorded pid is
never trusted blindly. waves never signals pid 0 or 1, nor its own process group; on Linux it
signals a recorded process group only when every live process in it carries the run's marker
WAVES_RUN=<run id> in its environment (/proc/<pid>/environ) — otherwise it says so, and stops
only the marked processes, one by one. A supervisor is signalled only when its command line is
waves __run <that run's record>.

Options:
${renderFlags(STOP_FLAGS)}

Examples:
  waves stop --all                              # every run still going
  waves stop --run resolve-101-20261129T120000123Z
  waves stop --wave 2 --json

Exit codes: 0 stopped (or nothing to stop), 1 a process survived SIGKILL or another failure,
2 bad flag or an unknown run.
`;

export async function runStop(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('stop', STOP_FLAGS, argv);
  if (values.help) {
    io.stdout(STOP_HELP);
    return 0;
  }
  const runId = stringFlag(values, 'run');
  const wave = intFlag(values, 'wave', 1);
  const picked = [runId !== undefined, wave !== undefined, Boolean(values.all)].filter(Boolean).length;
  if (picked !== 1) throw new UsageError('stop: name what to stop with exactly one of --run ID, --wave K or --all');
  const { root } = await rootFlag(values, io);
  const loaded = await loadConfig(root, undefined, io.cwd);
  const { journal, store: leaseStore } = await configuredLeases(loaded, root, () => io.now());
  const { records } = await readRecords(path.join(root, RUNS_DIR));
  // A record's file name is its id: the one thing about a run its agent cannot rewrite in place.
  const byFile = records.map(({ file, record }) => ({ file, record, id: path.basename(file, '.json') }));
  if (runId !== undefined && !byFile.some((r) => r.id === runId)) throw new UsageError(`--run ${safeText(runId, 120)}: no such run under ${RUNS_DIR}/ (see waves status)`);
  const going = (record: RunRecord) => !(TERMINAL as readonly string[]).includes(record.status);
  const chosen = byFile.filter((r) => (runId !== undefined ? r.id === runId : wave !== undefined ? r.record.wave === wave : true)).filter((r) => going(r.record));
  if (chosen.length === 0) {
    if (values.json) io.stdout('[]\n');
    io.stderr(`waves: nothing to stop: no ${runId ?? (wave !== undefined ? `run of wave ${wave}` : 'run')} is still going\n`);
    return 0;
  }
  const outcomes = await Promise.all(
    chosen.map(({ file }) =>
      stopRun(file, { journal, leaseStore, now: () => io.now(), graceMs: killGraceMs(io.env), status: 'cancelled', reason: 'stopped by waves stop', askSupervisor: true }),
    ),
  );
  const report = renderStops(outcomes);
  io.stderr(report.stderr);
  io.stdout(values.json ? `${JSON.stringify(stopsJson(outcomes), null, 2)}\n` : report.stdout);
  return outcomes.some((o) => o.survivors.length > 0) ? 1 : 0;
}
