/**
 * Starts a process whose stdout and stderr go to a log file: from argv (no shell), stdin closed,
 * as the leader of a new session and process group (so that its whole tree can be stopped).
 *
 * - No cap (the default): the log file's descriptor is the child's stdout and stderr. Nothing
 *   passes through node, so there is no buffer to overflow and nothing to break: an agent may
 *   print gigabytes. Secrets are redacted afterwards, by the log's `finish` (held-log.ts).
 * - A cap (`logs.maxBytes`): the output comes through pipes, is redacted as it passes and written
 *   up to the cap; past it, one note says so and the rest is read and discarded, so the process
 *   never blocks on a full pipe nor dies of a broken one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { HeldLog } from './held-log.js';
import { Redactor } from './redact.js';

export interface Exit {
  /** The exit code, or null when a signal ended it (or it never started). */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it could not start (the executable is missing…), else null. */
  error: string | null;
}

export interface LoggedOptions {
  cwd: string;
  env: Record<string, string>;
  /** The log, created by waves before the process starts (held-log.ts): written through its descriptor only, never by name. */
  log: HeldLog;
  /** Bytes of output kept in the log; null: no cap. */
  maxBytes: number | null;
  /** Values replaced by [REDACTED] in the log as it passes (with a cap; without, the log's `finish` redacts). */
  secrets: readonly string[];
}

export interface LoggedProcess {
  /** The process (and process group) id; null when it could not start. */
  pid: number | null;
  exited: Promise<Exit>;
  /**
   * Finishes the output once the process tree is gone: the last piped output written (waiting at
   * most `waitMs` for pipes something outside the tree still holds). The log stays open: its
   * owner finishes it (redacted) and closes it.
   */
  close(waitMs?: number): Promise<void>;
}

export function truncationNote(maxBytes: number): string {
  return `\n[waves] log truncated at ${maxBytes} bytes (logs.maxBytes); the rest of the output was read and discarded\n`;
}

/**
 * Why a command did not start, in one line. E2BIG: the system refused its arguments (Linux allows
 * 128 KB in one argument, the prompt among them, and about 2 MB in all) — said so, not as a bare code.
 */
function startFailure(error: NodeJS.ErrnoException): string {
  if (error.code === 'E2BIG') return 'spawn E2BIG: its command line is longer than the system allows (at most 128 KB in one argument, such as the prompt); shorten the issue or pass the prompt another way';
  return error.message.split('\n')[0] ?? 'could not start';
}

export function startLogged(argv: readonly string[], options: LoggedOptions): LoggedProcess {
  const capped = options.maxBytes !== null;
  const fd = options.log.fd;
  let child: ChildProcess;
  try {
    child = spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', capped ? 'pipe' : fd, capped ? 'pipe' : fd],
      detached: true,
      shell: false,
    });
  } catch (error) {
    // Invalid arguments (a NUL byte…) throw at once rather than emitting 'error'.
    const message = startFailure(error as NodeJS.ErrnoException);
    return { pid: null, exited: Promise.resolve({ code: null, signal: null, error: message }), close: async () => undefined };
  }
  const exited = new Promise<Exit>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error: startFailure(error) }));
    child.once('exit', (code, signal) => resolve({ code, signal, error: null }));
  });
  if (!capped) {
    // The child holds its own copy of the descriptor.
    return { pid: child.pid ?? null, exited, close: async () => undefined };
  }

  let written = 0;
  let truncated = false;
  let closed = false;
  const write = (bytes: Buffer) => {
    if (closed || truncated || bytes.length === 0) return;
    const room = options.maxBytes! - written;
    try {
      if (bytes.length <= room) {
        writeSync(fd, bytes);
        written += bytes.length;
        return;
      }
      writeSync(fd, bytes.subarray(0, room));
      written += room;
      writeSync(fd, truncationNote(options.maxBytes!));
      truncated = true;
    } catch {
      // a full disk: the rest is read and discarded
      truncated = true;
    }
  };
  const drain = (stream: Readable | null): Promise<void> => {
    if (!stream) return Promise.resolve();
    const redactor = new Redactor(options.secrets);
    stream.on('data', (chunk: Buffer) => write(redactor.push(chunk)));
    return new Promise<void>((resolve) => {
      stream.once('close', () => {
        write(redactor.flush());
        resolve();
      });
      stream.once('error', () => resolve());
    });
  };
  const streams = [child.stdout, child.stderr];
  const drained = Promise.all(streams.map(drain));
  return {
    pid: child.pid ?? null,
    exited,
    async close(waitMs = 2_000) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
      // A process outside the tree (not marked, on a system without /proc) may still hold a pipe.
      closed = true;
      for (const stream of streams) stream?.destroy();
    },
  };
}

/** Its exit, or — when it has not come within `ms` (a process stuck in the kernel outlives even SIGKILL) — an unknown one. */
export async function exitWithin(child: LoggedProcess, ms: number): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const unknown = new Promise<Exit>((resolve) => (timer = setTimeout(() => resolve({ code: null, signal: null, error: null }), ms)));
  const exit = await Promise.race([child.exited, unknown]);
  clearTimeout(timer);
  return exit;
}
