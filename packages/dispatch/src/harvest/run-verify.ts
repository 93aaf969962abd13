/**
 * Runs the configured verification commands for one harvested run (and a worktree's setup
 * commands before its agent starts: worktree-setup.ts), in its work tree, one after
 * the other: argv with no shell, stdin closed, stdout and stderr appended to one log (straight to
 * the file, or up to `logs.maxBytes` each), the GitHub tokens left out of their environment and
 * redacted from the log, a timeout per command. Each command leads a process group of its own,
 * marked `WAVES_RUN=<log>#<n>`; when it ends — passed, failed, timed out or aborted — whatever it
 * left running (its group, and marked processes that left it) is stopped (SIGTERM, the grace,
 * SIGKILL) and checked gone before the next command starts. The result of each is passed, failed
 * (with its exit code), timed_out, or error (it could not start).
 */
import path from 'node:path';
import { childEnvironment, secretsOf } from '../runs/agent-env.js';
import { HeldLog } from '../runs/held-log.js';
import { DEFAULT_GRACE_MS, stopProcessTree } from '../runs/kill-tree.js';
import { exitWithin, startLogged } from '../runs/logged-process.js';
import type { VerifyResult } from '../runs/run-record.js';

/** How long a verification command may run when neither the config nor a flag says. */
export const DEFAULT_VERIFY_TIMEOUT = '10m';

export interface VerifyOptions {
  cwd: string;
  log: string;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL when a command is stopped (default 5 s). */
  graceMs?: number;
  /** The environment the commands' is made from, and the secrets redacted from the log (default: this process's). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Bytes of each command's output kept in the log; null or absent: no cap. */
  maxBytes?: number | null;
  /** Stops the running command (its process group) and skips the rest. */
  signal?: AbortSignal;
  /**
   * The marker (`WAVES_RUN`) of every command: a run's id, so that `waves stop` and a dispatch
   * taking over a dead supervisor find them as the run's (default: the log's name and the
   * command's number).
   */
  runId?: string;
  /** Put before each command's default marker (`<prefix><log>#<n>`): who started it (a harvest's pid). */
  markerPrefix?: string;
}

export async function runVerify(commands: readonly (readonly string[])[], options: VerifyOptions): Promise<VerifyResult[]> {
  const results: VerifyResult[] = [];
  const env = options.env ?? process.env;
  const secrets = secretsOf(env);
  // Created anew and written through its descriptor only (held-log.ts): a link or FIFO put at its
  // name meanwhile is never followed; redacted and put back at its name at the end.
  const log = HeldLog.create(options.log);
  try {
    await runEach(commands, options, env, secrets, log, results);
  } finally {
    await log.finish(options.maxBytes ? [] : secrets);
  }
  return results;
}

async function runEach(
  commands: readonly (readonly string[])[],
  options: VerifyOptions,
  env: Readonly<Record<string, string | undefined>>,
  secrets: readonly string[],
  log: HeldLog,
  results: VerifyResult[],
): Promise<void> {
  for (const [index, argv] of commands.entries()) {
    log.append(`$ ${JSON.stringify(argv)}\n`);
    const started = Date.now();
    const runId = options.runId ?? `${options.markerPrefix ?? ''}${path.basename(options.log, '.log')}#${index + 1}`;
    const child = startLogged(argv, { cwd: options.cwd, env: childEnvironment(env, { runId }), log, maxBytes: options.maxBytes ?? null, secrets });
    let timedOut = false;
    let stopNow: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stopNow = resolve));
    const timer = setTimeout(() => {
      timedOut = true;
      stopNow();
    }, options.timeoutMs);
    const onAbort = () => stopNow();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) stopNow();
    await Promise.race([child.exited, stopped]);
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    // Whatever it started goes with it, before the next command or the commit.
    const tree = await stopProcessTree({ pgid: child.pid, runId, trusted: true }, { graceMs: options.graceMs ?? DEFAULT_GRACE_MS });
    const exit = await exitWithin(child, tree.survivors.length > 0 ? 1_000 : 10_000);
    await child.close();
    const durationMs = Date.now() - started;
    const status: VerifyResult['status'] = timedOut ? 'timed_out' : exit.error !== null ? 'error' : exit.code === 0 ? 'passed' : 'failed';
    const exitCode = timedOut ? null : exit.code;
    results.push({ argv: [...argv], status, exitCode, durationMs, log: options.log, ...(exit.error !== null ? { error: exit.error } : {}) });
    const why = status === 'error' ? `: ${exit.error}` : exit.signal && !timedOut ? ` (${exit.signal})` : '';
    log.append(`\n[waves] ${status}${exitCode !== null ? ` (exit code ${exitCode})` : ''} after ${durationMs} ms${why}\n`);
    // Later commands are not worth running once one has not passed.
    if (status !== 'passed' || options.signal?.aborted) break;
  }
}
