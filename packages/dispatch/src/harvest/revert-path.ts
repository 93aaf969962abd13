/**
 * The revert of one out-of-fence path of a run's worktree: what is there is copied aside as it
 * really is (a link as a link with its target text, a file by its content, a folder walked, never
 * followed), removed, and the path restored as it was at the run's start. A path below a link (or
 * below a file standing where a folder was) is never followed: that link is what the agent
 * changed, so it is backed up and removed itself first.
 *
 * Every act goes through folders held open (held-dir.ts): the check that a folder is a real one
 * and the read, unlink or write in it cannot be parted by a process that swaps the folder for a
 * link in between. So the restore is written by waves too, not by `git restore` (which checks the
 * folders on the way, then opens the path from the top: the same race): the content comes from
 * git (`git cat-file --filters`, as a checkout would write it), the file is created in its held
 * folder (O_CREAT|O_EXCL|O_NOFOLLOW), and the index entry is set with `git update-index
 * --cacheinfo`, which touches no file.
 */
import path from 'node:path';
import { git, gitBytes, objectAt } from './git-changes.js';
import { heldParent, HeldDir, TooLargeToCopyError, TreeRaceError, type CopyBudget } from './held-dir.js';
import { megabytes } from '@waves/planner';

/** The revert of a run could not be completed; what was reverted before is in its backup. */
export class RevertError extends Error {}

/**
 * The most one revert copies aside, all files together: an agent can make a file that costs it
 * nothing and says it holds gigabytes (`truncate -s 100G`). Past it, the path is not reverted
 * (nothing removed, nothing lost) and the run needs a person.
 */
export const MAX_REVERT_BACKUP_BYTES = 512 * 1024 * 1024;

export class Reverter {
  /** Paths already handled (a link removed as the ancestor of another path): not touched again. */
  readonly handled = new Set<string>();
  private backupDir: HeldDir | null = null;
  private readonly budget: CopyBudget = { limit: MAX_REVERT_BACKUP_BYTES, left: MAX_REVERT_BACKUP_BYTES };

  private constructor(
    private readonly cwd: string,
    private readonly base: string | null,
    private readonly tree: HeldDir,
    private readonly runs: HeldDir,
    /** The name of the backup folder in the runs folder, made when the first thing is backed up. */
    readonly backupName: string,
  ) {}

  /**
   * Holds the worktree `cwd` (whose real path must be `realCwd`) and the runs folder (`realRuns`),
   * where the agent's versions go (`backupName`, a new folder).
   */
  static async open(options: { cwd: string; realCwd: string; base: string | null; runsDir: string; realRuns: string; backupName: string }): Promise<Reverter> {
    const tree = await HeldDir.openTop(options.cwd, options.realCwd);
    try {
      const runs = await HeldDir.openTop(options.runsDir, options.realRuns);
      return new Reverter(options.cwd, options.base, tree, runs, options.backupName);
    } catch (error) {
      await tree.close();
      throw error;
    }
  }

  /**
   * Throws `TooLargeToCopyError` when backing up these paths would copy more than the revert
   * keeps: measured before anything is copied or removed, so that a refused revert changes nothing.
   */
  async assertFits(paths: readonly string[]): Promise<void> {
    let total = 0;
    for (const rel of paths) {
      const parent = await heldParent(this.tree, rel, false).catch(() => null);
      if (parent === null) continue;
      try {
        total += await parent.dir.copySize(parent.name, this.budget.left - total);
      } finally {
        await Promise.all(parent.opened.map((d) => d.close()));
      }
      if (total > this.budget.left) {
        throw new TooLargeToCopyError(`backing up the agent's versions would copy at least ${megabytes(total)}, more than the ${megabytes(this.budget.limit)} a revert keeps: not reverted, nothing removed`);
      }
    }
  }

  /** Whether anything was backed up (the backup folder is kept). */
  get kept(): boolean {
    return this.backupDir !== null;
  }

  /** Restores `file` (and first any link or file standing in place of one of its folders); returns the paths it reverted. */
  async revertPath(file: string): Promise<string[]> {
    const reverted: string[] = [];
    // git lists a nested repository as `dir/`; git paths name it without the slash.
    const entry = file.replace(/\/+$/, '');
    const parts = entry.split('/');
    const opened: HeldDir[] = [];
    let dir: HeldDir | null = this.tree;
    try {
      for (let i = 0; i < parts.length - 1 && dir !== null; i++) {
        const prefix = parts.slice(0, i + 1).join('/');
        dir = await this.descend(dir, parts[i]!, prefix, reverted);
        if (dir !== null) opened.push(dir);
      }
      if (!this.handled.has(file)) {
        this.handled.add(file);
        // Nothing on disk below a part that was not a real folder: only the restore is left.
        if (dir !== null) await this.takeAway(dir, parts.at(-1)!, entry);
        await this.restore(entry);
        reverted.push(file);
      }
    } finally {
      await Promise.all(opened.map((d) => d.close()));
    }
    return reverted;
  }

  /** The folder `name` of `dir`, held; a link or a file standing there is reverted itself first (then null: nothing is below). */
  private async descend(dir: HeldDir, name: string, prefix: string, reverted: string[]): Promise<HeldDir | null> {
    for (let i = 0; i < 50; i++) {
      const stat = await dir.stat(name);
      if (stat === null) return null;
      if (stat.isDirectory()) {
        const next = await dir.openDir(name);
        if (next !== null) return next;
        continue;
      }
      if (!this.handled.has(prefix)) {
        this.handled.add(prefix);
        await this.takeAway(dir, name, prefix);
        await this.restore(prefix);
        reverted.push(prefix);
      }
      return null;
    }
    throw new TreeRaceError(`${prefix} kept changing while waves reverted it (something is still writing there)`);
  }

  /** Copies the entry aside (into the backup, at `rel`) and removes it. */
  private async takeAway(dir: HeldDir, name: string, rel: string): Promise<void> {
    if ((await dir.stat(name)) === null) return;
    // Measured before a byte is copied: a revert refused for its size leaves no partial copy behind
    // (a harvest asked again would copy as much again).
    const size = await dir.copySize(name, this.budget.left);
    if (size > this.budget.left) {
      const room = this.budget.left === this.budget.limit ? `the ${megabytes(this.budget.limit)}` : `the ${megabytes(this.budget.left)} left of the ${megabytes(this.budget.limit)}`;
      throw new TooLargeToCopyError(`${rel} holds at least ${megabytes(size)}, more than ${room} a revert backs up: not reverted, nothing removed`);
    }
    this.backupDir ??= await this.runs.makeDir(this.backupName);
    // Backed up already as something else (a folder, then a link in its place): the tree changes under the revert.
    const twice = () => new TreeRaceError(`${rel} changed while waves reverted it (backed up once already, as something else): something is still writing there`);
    const parent = await heldParent(this.backupDir, rel, true).catch((error: unknown) => Promise.reject(error instanceof TreeRaceError ? twice() : error));
    try {
      await dir.copyTo(name, parent!.dir, parent!.name, this.budget).catch((error: unknown) => Promise.reject((error as NodeJS.ErrnoException).code === 'EEXIST' ? twice() : error));
    } finally {
      await Promise.all(parent!.opened.map((d) => d.close()));
    }
    await dir.remove(name);
  }

  /** Puts `entry` back as it was in the base commit, in the work tree and the index. */
  private async restore(entry: string): Promise<void> {
    const was = await objectAt(this.cwd, this.base, entry);
    if (was !== 'blob' && was !== 'commit') {
      // Not there then (or a folder, whose files are restored one by one): out of the index too.
      await git(this.cwd, ['update-index', '--force-remove', '--', entry]);
      return;
    }
    const [mode, , id] = (await git(this.cwd, ['ls-tree', '-z', this.base!, '--', entry])).split('\0')[0]!.split('\t')[0]!.split(' ');
    if (was === 'blob') {
      const parent = await heldParent(this.tree, entry, true);
      try {
        const { dir, name } = parent!;
        if ((await dir.stat(name)) !== null) throw new TreeRaceError(`${entry} came back while waves restored it (something is still writing there)`);
        if (mode === '120000') await dir.makeLink(name, (await gitBytes(this.cwd, ['cat-file', 'blob', id!])).toString('utf8'));
        else await dir.writeNewFile(name, await gitBytes(this.cwd, ['cat-file', '--filters', `${this.base}:${entry}`]), mode === '100755' ? 0o755 : 0o644);
      } finally {
        await Promise.all(parent!.opened.map((d) => d.close()));
      }
    }
    // A gitlink: the index entry only (its folder would be another repository's work tree).
    await git(this.cwd, ['update-index', '--add', '--cacheinfo', `${mode},${id},${entry}`]);
  }

  /** Lets go of the folders; removes the backup folder when nothing went into it. */
  async close(): Promise<void> {
    await this.backupDir?.close();
    await this.tree.close();
    await this.runs.close();
  }

  /** Where the backup is, relative to the repository root. */
  backupPath(root: string, runsDir: string): string {
    return path.relative(root, path.join(runsDir, this.backupName));
  }
}
