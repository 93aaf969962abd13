/**
 * The supervisor of one agent run: a small process of its own (`waves __run RECORD`), so that a
 * run is watched and settled whether `waves dispatch` waits in the foreground or has returned.
 * It starts the agent (argv, no shell, stdin closed, output to the log, the GitHub tokens left out
 * unless passed through, `WAVES_RUN=<run id>` added) as the leader of its own process group,
 * writes the pid file and the record, keeps the leases, enforces the timeout and forwards a
 * cancellation. However the run ends — the agent's own exit, the timeout, a signal, a lost
 * lease — it then stops what is left of the run's processes (SIGTERM, the grace, SIGKILL: the
 * daemon an agent left behind too), checks they are gone, finishes the log (redacted), and only
 * then settles the record and releases the leases.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { releaseLeases } from '../leases/lease-journal.js';
import { childEnvironment, secretsOf } from './agent-env.js';
import { keepLeases } from './keep-leases.js';
import { DEFAULT_GRACE_MS, stopProcessTree } from './kill-tree.js';
import { exitWithin, startLogged, type Exit } from './logged-process.js';
import { readTrustedRecord, writeRecord, type RunRecord, type TerminalStatus } from './run-record.js';

export interface SuperviseOptions {
  /** Between SIGTERM and SIGKILL when the agent must stop (default 5 s). */
  graceMs?: number;
  now?: () => Date;
  /** The environment the agent's is made from, and the secrets redacted from its log (default: this process's). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Sends a signal to a whole process group, ignoring one that is already gone. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  if (!Number.isSafeInteger(pid) || pid <= 1) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

export async function superviseRun(recordFile: string, options: SuperviseOptions = {}): Promise<RunRecord> {
  const now = options.now ?? (() => new Date());
  const grace = options.graceMs ?? DEFAULT_GRACE_MS;
  const env = options.env ?? process.env;
  // The sealed copy: the repository's may already have been rewritten by another agent of the wave.
  let record = await readTrustedRecord(recordFile);
  const save = async (changes: Partial<RunRecord>) => {
    record = { ...record, ...changes };
    await writeRecord(recordFile, record);
  };
  // Lines of waves' own in the log; awaited before the log is finished (and rewritten, redacted).
  const notes: Promise<void>[] = [];
  const note = (line: string) => notes.push(appendFile(record.log, `\n[waves] ${line}\n`).catch(() => undefined));
  // The run's processes carry the id of the record's file name, which the agent cannot change.
  const runId = path.basename(recordFile, '.json');

  // Set by signal handlers, timers and the lease keeper: the first reason to stop wins.
  const state: { ending: { status: TerminalStatus; reason: string } | null } = { ending: null };
  let requestStop: () => void = () => undefined;
  const stopRequested = new Promise<void>((resolve) => (requestStop = resolve));
  const stop = (status: TerminalStatus, reason: string) => {
    if (state.ending !== null) return;
    state.ending = { status, reason };
    requestStop();
  };
  const onSignal = (signal: NodeJS.Signals) => stop('cancelled', `stopped by ${signal}`);
  for (const signal of SIGNALS) process.on(signal, onSignal);

  await writeFile(record.log, '', { flag: 'a' });
  let keeper: { stop(): void } | null = null;
  let timer: NodeJS.Timeout | undefined;
  let agentPid: number | null = null;
  try {
    await save({ supervisorPid: process.pid });
    const agent = startLogged(record.argv, {
      cwd: record.cwd,
      env: childEnvironment(env, { passThrough: record.passEnv ?? [], runId }),
      log: record.log,
      maxBytes: record.logMaxBytes ?? null,
      secrets: secretsOf(env),
    });
    agentPid = agent.pid;
    if (agent.pid !== null) {
      await writeFile(record.pidFile, `${agent.pid}\n`);
      await save({ pid: agent.pid, status: 'running' });
    }
    keeper = keepLeases({
      journal: record.journal,
      ids: record.leaseIds,
      ttlMs: record.leaseTtlMs,
      now,
      onLost: (lane, why) => {
        const reason = `its lease on ${lane} was lost (${why})`;
        note(`${reason}; stopping the agent`);
        stop('failed', reason);
      },
      onTrouble: (message) => note(message),
    });
    if (record.timeoutMs !== null) {
      const limit = record.timeoutMs;
      timer = setTimeout(() => stop('timed_out', `no end after ${Math.round(limit / 1000)} s`), limit);
    }
    // Whichever comes first: the agent's own end, or a reason to stop it.
    let exit: Exit | null = await Promise.race([agent.exited, stopRequested.then(() => null)]);
    // Once the agent has ended, the ending is its own: a later signal only hurries the cleanup.
    const stoppedFirst = exit === null ? state.ending : null;
    keeper.stop();
    clearTimeout(timer);
    // Everything the run started goes, whatever the ending: a daemon left after an exit 0 too.
    const tree = await stopProcessTree({ pgid: agent.pid, runId, trusted: true }, { graceMs: grace });
    // A leader that survived even SIGKILL (stuck in the kernel) must not hold the record forever.
    exit ??= await exitWithin(agent, tree.survivors.length > 0 ? 1_000 : 10_000);
    await Promise.all(notes);
    await agent.close();
    const status: TerminalStatus = stoppedFirst?.status ?? (exit.code === 0 ? 'succeeded' : 'failed');
    let reason = stoppedFirst?.reason ?? exit.error ?? (status === 'failed' ? `exit code ${exit.code ?? `signal ${exit.signal}`}` : null);
    if (tree.survivors.length > 0) reason = `${reason ?? status}; pid(s) ${tree.survivors.join(', ')} still there after SIGKILL`;
    await save({ status, exitCode: exit.code, signal: exit.signal, reason, endedAt: now().toISOString() });
  } catch (error) {
    await stopProcessTree({ pgid: agentPid, runId, trusted: true }, { graceMs: grace }).catch(() => undefined);
    await save({ status: 'failed', reason: (error as Error).message.split('\n')[0] ?? 'failed', endedAt: now().toISOString() });
  } finally {
    keeper?.stop();
    clearTimeout(timer);
    // However the run ended, its leases end with it; only then may a signal end this process.
    await releaseLeases(record.journal, record.leaseIds, now).catch(() => undefined);
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
  return record;
}

