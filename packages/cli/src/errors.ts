import { LeaseBusyError } from '@waves/dispatch';
import { ConfigError, InputError, WavesError } from '@waves/planner';
import { safeText } from './render/safe-text.js';

/** Usage or input error raised by the CLI itself (flags, files). Exit code 2. */
export class UsageError extends InputError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UsageError';
  }
}

/** The command was interrupted (Ctrl-C, SIGTERM) and undid what it had started. Exit code 130. */
export class InterruptedError extends WavesError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InterruptedError';
  }
}

export const EXIT = { ok: 0, failure: 1, badInput: 2, busy: 3, interrupted: 130 } as const;

/** The one place errors become exit codes. Unknown errors are failures (exit 1). */
export function exitCodeFor(error: unknown): number {
  if (error instanceof InterruptedError) return EXIT.interrupted;
  // Every compare-and-swap of the git lease table lost to other writers: like a refusal, try again.
  if (error instanceof LeaseBusyError) return EXIT.busy;
  if (error instanceof InputError || error instanceof ConfigError) return EXIT.badInput;
  return EXIT.failure;
}

/** One line naming what went wrong; the stack only with --debug. */
export function formatError(error: unknown, debug: boolean): string {
  const err = error instanceof Error ? error : new Error(String(error));
  // Our own errors say what went wrong; anything else is a bug in waves.
  const known = error instanceof WavesError;
  // Messages quote what was given (a lane, a path, a name): never a raw control character.
  const line = `waves: ${known ? '' : 'internal error: '}${safeText(err.message.split('\n')[0]!)}`;
  if (!debug) return `${line}${known ? '' : ' (run with --debug for the stack)'}\n`;
  return `${line}\n${err.stack ?? ''}\n`;
}
