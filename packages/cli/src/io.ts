import { takeTokens } from '@waves/dispatch/token-holder';
import { UsageError } from './errors.js';
/** The process around a command, passed in so commands can be run and tested in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /**
   * Resolves once stdout has taken what was written (a pipe's reader caught up), so that a long
   * output written piece by piece is not all queued in memory. Absent: nothing to wait for.
   */
  stdoutDrained?: () => Promise<void>;
  /** Reads all of standard input. */
  readStdin: () => Promise<string>;
  /** Whether stderr is a terminal (progress is shown only then). */
  stderrIsTTY: boolean;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  now: () => Date;
}

/** The most standard input read (an issues file piped in: the same bound as a file's). */
export const MAX_STDIN_BYTES = 64 * 1024 * 1024;

/** All of a stream, or a UsageError past MAX_STDIN_BYTES (`< /dev/zero` would read until memory runs out). */
async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += bytes.length;
    if (total > MAX_STDIN_BYTES) {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      throw new UsageError(`standard input: larger than ${MAX_STDIN_BYTES / (1024 * 1024)} MB; not read further`);
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * This process as a command's io. The GitHub tokens leave `process.env` first (no child inherits
 * them) and, on Linux, this process's initial environment block (another process of the user
 * reading /proc/<pid>/environ finds them no more): held in memory only (token-holder.ts).
 */
export function processIo(): CliIo {
  takeTokens();
  // A reader that stops early (`waves graph | head`) closes the pipe: the rest of the output has
  // nowhere to go, and the command still ends as it would (a dispatch settles its runs), quietly.
  let closed = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
  });
  return {
    stdout: (text) => {
      if (!closed) process.stdout.write(text);
    },
    stdoutDrained: () =>
      closed || !process.stdout.writableNeedDrain
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            // A reader that goes away (EPIPE, close) ends the wait too: the rest goes nowhere.
            const done = () => {
              process.stdout.off('drain', done).off('close', done).off('error', done);
              resolve();
            };
            process.stdout.on('drain', done).on('close', done).on('error', done);
          }),
    stderr: (text) => process.stderr.write(text),
    readStdin: () => readAll(process.stdin),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
    env: process.env,
    now: () => new Date(),
  };
}
