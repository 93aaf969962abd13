/** `--root DIR`, shared by every command: the repository a command works on. */
import path from 'node:path';
import { checkOwnDirectories } from '@waves/dispatch';
import { assertDirectory } from '@waves/planner';
import { stringFlag, type ParsedArgs } from './args.js';
import { UsageError } from './errors.js';
import type { CliIo } from './io.js';

/**
 * The root as an absolute path and as the user wrote it; a root that is no directory is a usage
 * error, and so is a root whose `.waves` or `.dispatch-runs` is a link or a file (see own-dirs.ts):
 * checked here, before any command reads or writes under them.
 */
export async function rootFlag(values: ParsedArgs['values'], io: CliIo): Promise<{ root: string; rootArg: string | undefined }> {
  const rootArg = stringFlag(values, 'root');
  const root = path.resolve(io.cwd, rootArg ?? '.');
  await assertDirectory(root).catch((error: Error) => {
    throw new UsageError(`--root ${rootArg ?? '.'}: ${error.message.replace(/^root [^:]*: /, '')}`);
  });
  await checkOwnDirectories(root);
  return { root, rootArg };
}
