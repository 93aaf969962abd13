/**
 * The supervisor of one agent run: a small process of its own (`waves __run RECORD`), so that a
 * run is watched and settled whether `waves dispatch` waits in the foreground or has returned.
 * It starts the agent (argv, no shell, stdin closed, stdout and stderr to the log) as the leader
 * of its own process group, writes the pid file and the record, enforces the timeout, forwards a
 * cancellation, and — however the run ends — records the terminal status and releases the
 * run's leases.
 */
import { writeFile } from 'node:fs/promises';
import { execa } from 'execa';
import { releaseLeases, renewLease } from '../leases/lease-journal.js';
import { readRecord, readSeal, writeRecord, type RunRecord, type TerminalStatus } from './run-record.js';

export interface SuperviseOptions {
  /** Between SIGTERM and SIGKILL when the agent must stop (default 5 s). */
  graceMs?: number;
  now?: () => Date;
}

/** Sends a signal to a whole process group, ignoring one that is already gone. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
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

export async function superviseRun(recordFile: string, options: SuperviseOptions = {}): Promise<RunRecord> {
  const now = options.now ?? (() => new Date());
  const grace = options.graceMs ?? 5_000;
  // The sealed copy: the repository's may already have been rewritten by another agent of the wave.
  let record = (await readSeal(recordFile)) ?? (await readRecord(recordFile));
  const save = async (changes: Partial<RunRecord>) => {
    record = { ...record, ...changes };
    await writeRecord(recordFile, record);
  };
  // Set from signal handlers and timers: an object, so that every read sees the latest value.
  const state: { ending: TerminalStatus | null; reason: string | null } = { ending: null, reason: null };
  await writeFile(record.log, '', { flag: 'a' });
  let child: ReturnType<typeof execa> | null = null;
  const stop = (status: TerminalStatus, why: string) => {
    if (state.ending !== null) return;
    state.ending = status;
    state.reason = why;
    const pid = child?.pid;
    if (pid === undefined) return;
    killGroup(pid, 'SIGTERM');
    setTimeout(() => killGroup(pid, 'SIGKILL'), grace).unref();
  };
  const onSignal = (signal: NodeJS.Signals) => stop('cancelled', `stopped by ${signal}`);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, onSignal);
  try {
    await save({ supervisorPid: process.pid });
    child = execa(record.argv[0]!, record.argv.slice(1), {
      cwd: record.cwd,
      stdin: 'ignore',
      // Both streams appended to the one log (O_APPEND keeps their writes whole).
      stdout: { file: record.log, append: true },
      stderr: { file: record.log, append: true },
      detached: true,
      cleanup: false,
      reject: false,
      shell: false,
    });
    if (child.pid !== undefined) {
      await writeFile(record.pidFile, `${child.pid}\n`);
      await save({ pid: child.pid, status: 'running' });
    }
    // A long run keeps its leases: renewed at a third of their time, so one missed renewal is no gap.
    const renewal = setInterval(() => {
      for (const id of record.leaseIds) void renewLease(record.journal, id, record.leaseTtlMs, now).catch(() => undefined);
    }, Math.max(1_000, Math.floor(record.leaseTtlMs / 3)));
    let timer: NodeJS.Timeout | undefined;
    if (record.timeoutMs !== null) {
      const limit = record.timeoutMs;
      timer = setTimeout(() => stop('timed_out', `no end after ${Math.round(limit / 1000)} s`), limit);
    }
    if (state.ending !== null && child.pid !== undefined) killGroup(child.pid, 'SIGTERM'); // cancelled while starting
    const result = await child;
    clearInterval(renewal);
    if (timer) clearTimeout(timer);
    const failedToStart = result.failed && result.exitCode === undefined && result.signal === undefined;
    const status: TerminalStatus = state.ending ?? (result.exitCode === 0 ? 'succeeded' : 'failed');
    await save({
      status,
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      reason: state.reason ?? (failedToStart ? (result.originalMessage ?? result.shortMessage) : status === 'failed' ? `exit code ${result.exitCode ?? `signal ${result.signal}`}` : null),
      endedAt: now().toISOString(),
    });
  } catch (error) {
    await save({ status: 'failed', reason: (error as Error).message.split('\n')[0] ?? 'failed', endedAt: now().toISOString() });
  } finally {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.off(signal, onSignal);
    // However the run ended, its leases end with it.
    await releaseLeases(record.journal, record.leaseIds, now).catch(() => undefined);
  }
  return record;
}
