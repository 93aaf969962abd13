/**
 * Runs the configured verification commands for one harvested run, in its work tree, one after
 * the other: argv with no shell, stdin closed, stdout and stderr appended to one log, a timeout
 * per command that stops its whole process group. The result of each is passed, failed (with its
 * exit code), timed_out, or error (it could not start).
 */
import { open } from 'node:fs/promises';
import { execa } from 'execa';
import { killGroup } from '../runs/supervise.js';
import type { VerifyResult } from '../runs/run-record.js';

export interface VerifyOptions {
  cwd: string;
  log: string;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL when a command times out (default 5 s). */
  graceMs?: number;
  env?: Record<string, string>;
  /** Stops the running command (its process group) and skips the rest. */
  signal?: AbortSignal;
}

export async function runVerify(commands: readonly (readonly string[])[], options: VerifyOptions): Promise<VerifyResult[]> {
  const results: VerifyResult[] = [];
  const log = await open(options.log, 'a');
  try {
    for (const argv of commands) {
      await log.appendFile(`$ ${JSON.stringify(argv)}\n`);
      const started = Date.now();
      const child = execa(argv[0]!, argv.slice(1), {
        cwd: options.cwd,
        stdin: 'ignore',
        stdout: { file: options.log, append: true },
        stderr: { file: options.log, append: true },
        // Its own process group, so that a timeout stops what it started too.
        detached: true,
        cleanup: false,
        reject: false,
        shell: false,
        ...(options.env ? { env: options.env } : {}),
      });
      let timedOut = false;
      const stop = () => {
        if (child.pid === undefined) return;
        killGroup(child.pid, 'SIGTERM');
        setTimeout(() => child.pid !== undefined && killGroup(child.pid, 'SIGKILL'), options.graceMs ?? 5_000).unref();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, options.timeoutMs);
      options.signal?.addEventListener('abort', stop, { once: true });
      if (options.signal?.aborted) stop();
      const result = await child;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
      const durationMs = Date.now() - started;
      const status: VerifyResult['status'] = timedOut ? 'timed_out' : result.failed && result.exitCode === undefined ? 'error' : result.exitCode === 0 ? 'passed' : 'failed';
      const exitCode = result.exitCode ?? null;
      results.push({ argv: [...argv], status, exitCode, durationMs, log: options.log });
      const why = status === 'error' ? `: ${result.originalMessage ?? result.shortMessage}` : '';
      await log.appendFile(`\n[waves] ${status}${exitCode !== null ? ` (exit code ${exitCode})` : ''} after ${durationMs} ms${why}\n`);
      // Later commands are not worth running once one has not passed.
      if (status !== 'passed' || options.signal?.aborted) break;
    }
  } finally {
    await log.close();
  }
  return results;
}
