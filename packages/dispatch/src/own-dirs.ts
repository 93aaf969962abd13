/**
 * waves' own directories in a repository: `.waves/` (leases, graph cache, worktrees, backtest
 * checkouts) and `.dispatch-runs/` (run records and logs). A cloned repository can commit any of
 * them as a symbolic link (`.waves -> /somewhere`, `.waves/worktrees -> /elsewhere`), and then
 * every cache, worktree, journal and `.gitignore` waves writes would land outside the repository.
 * So before any command uses them, each must be a real directory or absent: anything else is
 * refused with one line naming it, never followed. Nor may git track anything under them: what a
 * repository commits there (a link, a folder of its own) is the repository's to change, not waves'.
 */
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { execaGit, gitInputProblem, InputError } from '@waves/planner';
import { GIT_OPTIONS } from './harvest/git-changes.js';
import { RUNS_DIR } from './runs/run-record.js';

export const STATE_DIR = '.waves';
export const OWN_DIRECTORIES = [STATE_DIR, RUNS_DIR] as const;
/** The folders under `.waves/` that waves creates and writes in: each a real folder or absent. */
export const OWN_SUBDIRECTORIES = [`${STATE_DIR}/worktrees`, `${STATE_DIR}/cache`, `${STATE_DIR}/backtest`] as const;

/**
 * Throws an `InputError` (exit 2) when `.waves`, `.dispatch-runs`, or `.waves/worktrees`,
 * `.waves/cache` or `.waves/backtest` under `root` is there but not a directory, or when git
 * tracks a path under `.waves/` or `.dispatch-runs/`.
 */
export async function checkOwnDirectories(root: string): Promise<void> {
  for (const name of [...OWN_DIRECTORIES, ...OWN_SUBDIRECTORIES]) {
    const dir = path.join(root, name);
    const info = await lstat(dir).catch(() => null);
    if (info === null || info.isDirectory()) continue;
    if (info.isSymbolicLink()) {
      const target = await readlink(dir).catch(() => '?');
      throw new InputError(`${name}: a symbolic link in the repository (to ${target}); waves keeps its own files there and never follows a link: remove it`);
    }
    throw new InputError(`${name}: not a directory; waves keeps its own files there: remove it`);
  }
  // The first git of every command: a FIFO where git opens a file (an ignore or attributes file
  // at the root, an include of the config) would block it. One line now instead.
  const blocked = await gitInputProblem(root);
  if (blocked !== null) throw new InputError(blocked);
  // Only the index is read (no work tree content, so no filter runs); outside a repository git just fails.
  const tracked = await execaGit([...GIT_OPTIONS, 'ls-files', '-z', '--', ...OWN_DIRECTORIES], { cwd: root, reject: false, stdin: 'ignore' });
  if (tracked.exitCode !== 0) return;
  const paths = tracked.stdout.split('\0').filter(Boolean);
  if (paths.length > 0) {
    const shown = JSON.stringify(paths[0]).slice(1, -1);
    throw new InputError(
      `${shown}${paths.length > 1 ? ` and ${paths.length - 1} more` : ''}: tracked by git under ${paths[0]!.startsWith(RUNS_DIR) ? RUNS_DIR : STATE_DIR}/, where waves keeps its own files; a repository must not commit anything there: git rm --cached it`,
    );
  }
}
