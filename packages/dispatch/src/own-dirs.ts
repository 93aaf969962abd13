/**
 * waves' own directories in a repository: `.waves/` (leases, graph cache, worktrees) and
 * `.dispatch-runs/` (run records and logs). A cloned repository can commit either as a symbolic
 * link (`.waves -> /somewhere`), and then every cache, worktree, journal and `.gitignore` waves
 * writes would land outside the repository. So before any command uses them, each must be a real
 * directory or absent: anything else is refused with one line naming it, never followed.
 */
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '@waves/planner';
import { RUNS_DIR } from './runs/run-record.js';

export const STATE_DIR = '.waves';
export const OWN_DIRECTORIES = [STATE_DIR, RUNS_DIR] as const;

/** Throws an `InputError` (exit 2) when `.waves` or `.dispatch-runs` under `root` is there but not a directory. */
export async function checkOwnDirectories(root: string): Promise<void> {
  for (const name of OWN_DIRECTORIES) {
    const dir = path.join(root, name);
    const info = await lstat(dir).catch(() => null);
    if (info === null || info.isDirectory()) continue;
    if (info.isSymbolicLink()) {
      const target = await readlink(dir).catch(() => '?');
      throw new InputError(`${name}: a symbolic link in the repository (to ${target}); waves keeps its own files there and never follows a link: remove it`);
    }
    throw new InputError(`${name}: not a directory; waves keeps its own files there: remove it`);
  }
}
