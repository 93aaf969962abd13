/**
 * The revert of one out-of-fence path of a run's worktree: what is there is copied aside as it
 * really is (a link as a link with its target text, a file by its content, a folder walked, never
 * followed), removed, and the path restored as it was at the run's start. A path below a link (or
 * below a file standing where a folder was) is never followed: that link is what the agent
 * changed, so it is backed up and removed itself first. Only then does git write, so that neither
 * waves nor `git restore` ever writes, reads or deletes through a link.
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, objectAt } from './git-changes.js';
import { blockingAncestor } from './path-links.js';

export interface RevertTarget {
  /** The run's worktree. */
  cwd: string;
  /** The commit the run started from. */
  base: string | null;
  /** A folder of its own for what is removed, created by the caller. */
  backup: string;
  /** Paths already handled (a link removed as the ancestor of another path): not touched again. */
  handled: Set<string>;
}

/** Restores `file` (and first any link or file standing in place of one of its folders); returns the paths it reverted. */
export async function revertPath(target: RevertTarget, file: string): Promise<string[]> {
  const reverted: string[] = [];
  const blocker = await blockingAncestor(target.cwd, file);
  if (blocker !== null && !target.handled.has(blocker.path)) {
    await removeAndRestore(target, blocker.path);
    reverted.push(blocker.path);
  }
  if (!target.handled.has(file)) {
    await removeAndRestore(target, file);
    reverted.push(file);
  }
  return reverted;
}

async function removeAndRestore(target: RevertTarget, rel: string): Promise<void> {
  target.handled.add(rel);
  // Every folder above is a real one now (a blocker is handled before what is below it).
  const here = path.join(target.cwd, rel);
  const stat = await lstat(here).catch(() => null);
  if (stat !== null) {
    await backUp(here, target.backup, rel);
    if (stat.isDirectory()) await rm(here, { recursive: true, force: true });
    else await unlink(here);
  }
  // git lists a nested repository as `dir/`; git paths name it without the slash.
  const entry = rel.replace(/\/+$/, '');
  const was = await objectAt(target.cwd, target.base, entry);
  // A folder then: what lay in it is restored path by path (only the out-of-fence ones).
  if (was === 'blob' || was === 'commit') await git(target.cwd, ['restore', `--source=${target.base}`, '--staged', '--worktree', '--', entry]);
  else await git(target.cwd, ['update-index', '--force-remove', '--', entry]);
}

/** Copies `source` to `backup/rel` as it is: links as links, files by content, folders walked. */
async function backUp(source: string, backup: string, rel: string): Promise<void> {
  // The backup folder is waves' own, but a link backed up there must not lead a later copy out of it.
  if ((await blockingAncestor(backup, rel)) !== null) throw new Error(`the backup of ${rel} in ${backup} would pass through a link`);
  const dest = path.join(backup, rel);
  await mkdir(path.dirname(dest), { recursive: true });
  await copyAsItIs(source, dest);
}

async function copyAsItIs(source: string, dest: string): Promise<void> {
  const stat = await lstat(source);
  if (stat.isSymbolicLink()) await symlink(await readlink(source), dest);
  else if (stat.isDirectory()) {
    await mkdir(dest);
    for (const name of await readdir(source)) await copyAsItIs(path.join(source, name), path.join(dest, name));
  } else if (stat.isFile()) {
    const handle = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      await writeFile(dest, await handle.readFile(), { flag: 'wx', mode: stat.mode & 0o777 });
    } finally {
      await handle.close();
    }
  }
  // A FIFO, a socket, a device: nothing to keep (reading one could block or never end).
}
