/** `--root DIR`, shared by every command: the repository a command works on. */
import path from 'node:path';
import { assertDirectory } from '@waves/planner';
import { stringFlag, type ParsedArgs } from './args.js';
import { UsageError } from './errors.js';
import type { CliIo } from './io.js';

/** The root as an absolute path and as the user wrote it; a root that is no directory is a usage error. */
export async function rootFlag(values: ParsedArgs['values'], io: CliIo): Promise<{ root: string; rootArg: string | undefined }> {
  const rootArg = stringFlag(values, 'root');
  const root = path.resolve(io.cwd, rootArg ?? '.');
  await assertDirectory(root).catch((error: Error) => {
    throw new UsageError(`--root ${rootArg ?? '.'}: ${error.message.replace(/^root [^:]*: /, '')}`);
  });
  return { root, rootArg };
}
