/**
 * Folders held open, and every act on their entries done through the folder held — Linux only.
 *
 * A check of a path (lstat: "a real folder, no link") and the act that follows (read, unlink,
 * write) are two system calls; a process that keeps swapping a folder of the tree for a link to
 * somewhere else wins the race between them sooner or later, and the act lands outside the tree.
 * So nothing here acts on a path from the top: each folder is opened from its parent's handle with
 * O_DIRECTORY|O_NOFOLLOW (a link there fails the open, it is never followed), and each act on an
 * entry names it as `/proc/self/fd/<fd>/<name>`. The kernel resolves `/proc/self/fd/<fd>` to the
 * very folder that was opened — wherever it has moved since, whatever now stands at its old path —
 * and looks `<name>` up in it: the openat()/unlinkat()/mkdirat() that Node lacks. A file is opened
 * with O_NOFOLLOW|O_NONBLOCK and checked with fstat (a regular file, else not read); every folder
 * and file opened is checked to lie inside the tree, by its real path as /proc says.
 *
 * NOTE: Linux's /proc is required (heldDirsSupported). Elsewhere callers do not act at all.
 */
import { constants, existsSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, realpath, rmdir, symlink, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { megabytes } from '@waves/planner';

/** What a hard link's record in a backup is named after: its name and this. */
export const HARD_LINK_SUFFIX = '.hard-link-not-copied';
/** An entry that kept changing under waves, or a folder or file found outside the tree. */
export class TreeRaceError extends Error {}

/** What a copy may still write, of `limit` in all (a revert's backup: a file an agent made huge would fill the disk). */
export interface CopyBudget {
  readonly limit: number;
  left: number;
}

/** A copy past its budget: nothing of it is kept. */
export class TooLargeToCopyError extends TreeRaceError {}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** How often an act is tried again when the entry changed kind under it (a swapper at work). */
const ATTEMPTS = 50;
const CHUNK = 1 << 20;

const fdPath = (fd: number) => `/proc/self/fd/${fd}`;
const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** Whether this system can name an entry through its folder's handle. */
export function heldDirsSupported(): boolean {
  return process.platform === 'linux' && existsSync('/proc/self/fd');
}

/** Runs `act`; false when it failed with one of `codes` (the entry changed: look again), true when done. */
async function attempt(act: () => Promise<unknown>, codes: readonly string[]): Promise<boolean> {
  try {
    await act();
    return true;
  } catch (error) {
    if (codes.includes(codeOf(error) ?? '')) return false;
    throw error;
  }
}

export type ReadResult = { kind: 'file'; handle: FileHandle; mode: number } | { kind: 'other' } | { kind: 'changed' };

export class HeldDir {
  private constructor(
    private readonly handle: FileHandle,
    /** Where it is in the tree (`/`-separated, '' for the top), for messages. */
    readonly rel: string,
    /** The real path of the top of the tree: every folder and file opened lies inside it. */
    readonly within: string,
  ) {}

  /** Opens `dir`, the top of a tree, whose real path must be `real`. */
  static async openTop(dir: string, real: string): Promise<HeldDir> {
    const handle = await open(dir, DIR_FLAGS);
    const held = new HeldDir(handle, '', real);
    if ((await held.where()) !== real) {
      await handle.close();
      throw new TreeRaceError(`${dir} is no longer the folder it was (${real})`);
    }
    return held;
  }

  /** The entry `name` of this folder, named through its handle. */
  entry(name: string): string {
    if (name === '' || name === '.' || name === '..' || name.includes('/')) throw new Error(`not an entry name: ${JSON.stringify(name)}`);
    return `${fdPath(this.handle.fd)}/${name}`;
  }

  child(name: string): string {
    return this.rel === '' ? name : `${this.rel}/${name}`;
  }

  /** Its real path now, as the kernel knows it. */
  where(): Promise<string> {
    return readlink(fdPath(this.handle.fd));
  }

  private async assertInside(fd: number, what: string): Promise<void> {
    const real = await readlink(fdPath(fd));
    if (real !== this.within && !real.startsWith(`${this.within}/`)) throw new TreeRaceError(`${what} is outside the tree (${real}): waves does not touch it`);
  }

  /** lstat of an entry (never following it), or null when it is not there. */
  async stat(name: string): Promise<Stats | null> {
    return lstat(this.entry(name)).catch((error: unknown) => {
      if (codeOf(error) === 'ENOENT') return null;
      throw error;
    });
  }

  list(): Promise<string[]> {
    return readdir(fdPath(this.handle.fd));
  }

  /** The folder `name`, held open; null when it is not a real folder (a link, a file, gone). */
  async openDir(name: string): Promise<HeldDir | null> {
    let handle: FileHandle;
    try {
      handle = await open(this.entry(name), DIR_FLAGS);
    } catch (error) {
      if (['ENOENT', 'ENOTDIR', 'ELOOP'].includes(codeOf(error) ?? '')) return null;
      throw error;
    }
    const held = new HeldDir(handle, this.child(name), this.within);
    try {
      await this.assertInside(handle.fd, held.rel);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return held;
  }

  /** The folder `name`, made when it is not there; a link or a file there is a race: an error. */
  async makeDir(name: string): Promise<HeldDir> {
    await mkdir(this.entry(name)).catch((error: unknown) => {
      if (codeOf(error) !== 'EEXIST') throw error;
    });
    const held = await this.openDir(name);
    if (held === null) throw new TreeRaceError(`${this.child(name)} is not a folder any more (something else stands there now)`);
    return held;
  }

  /** Opens a regular file for reading; `other` for anything else, `changed` when it changed kind meanwhile. */
  async openFile(name: string): Promise<ReadResult> {
    let handle: FileHandle;
    try {
      handle = await open(this.entry(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      // ELOOP: a link now; EISDIR… cannot happen for O_RDONLY; ENXIO: a socket; ENOENT: gone.
      if (['ELOOP', 'ENOENT', 'ENXIO'].includes(codeOf(error) ?? '')) return { kind: 'changed' };
      throw error;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) {
        await handle.close();
        return stat.isDirectory() ? { kind: 'changed' } : { kind: 'other' };
      }
      await this.assertInside(handle.fd, this.child(name));
      return { kind: 'file', handle, mode: stat.mode & 0o777 };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /**
   * A new file `name` (never one that is there, never through a link) with this content; from a
   * file, at most what `budget` has left (taken from it): past that, the partial copy is removed
   * and a `TooLargeToCopyError` thrown.
   */
  async writeNewFile(name: string, content: Buffer | FileHandle, mode: number, budget?: CopyBudget): Promise<void> {
    const out = await open(this.entry(name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    let tooLarge = false;
    try {
      if (Buffer.isBuffer(content)) await out.writeFile(content);
      else {
        const buffer = Buffer.alloc(CHUNK);
        for (;;) {
          const { bytesRead } = await content.read(buffer, 0, CHUNK, null);
          if (bytesRead === 0) break;
          if (budget) {
            if (bytesRead > budget.left) {
              tooLarge = true;
              break;
            }
            budget.left -= bytesRead;
          }
          await out.write(buffer, 0, bytesRead);
        }
      }
    } finally {
      await out.close();
    }
    if (tooLarge) {
      await unlink(this.entry(name)).catch(() => undefined);
      throw new TooLargeToCopyError(`${this.child(name)} is larger than the ${megabytes(budget!.limit)} a revert backs up`);
    }
  }

  async makeLink(name: string, target: string): Promise<void> {
    await symlink(target, this.entry(name));
  }

  /**
   * The bytes a copy of the entry `name` would write (`copyTo`): its regular files' sizes as they
   * say (a hard link is recorded, not copied: none), a folder walked, never followed; stops
   * counting past `limit`.
   */
  async copySize(name: string, limit: number): Promise<number> {
    const stat = await this.stat(name);
    if (stat === null || stat.isSymbolicLink()) return 0;
    if (stat.isFile()) return stat.nlink > 1 ? 0 : stat.size;
    if (!stat.isDirectory()) return 0;
    const dir = await this.openDir(name);
    if (dir === null) return 0;
    try {
      let total = 0;
      for (const child of await dir.list()) {
        total += await dir.copySize(child, limit - total);
        if (total > limit) break;
      }
      return total;
    } finally {
      await dir.close();
    }
  }

  /**
   * Copies the entry `name` into `dest` as `destName`, as it is: a link as a link with its target
   * text, a file by its content, a folder walked; a FIFO, a socket or a device is left out.
   * Returns whether anything was there to copy. A regular file with more than one name (a hard
   * link) is recorded as `<destName>.hard-link-not-copied`, its content never read.
   */
  async copyTo(name: string, dest: HeldDir, destName = name, budget?: CopyBudget): Promise<boolean> {
    for (let i = 0; i < ATTEMPTS; i++) {
      const stat = await this.stat(name);
      if (stat === null) return false;
      if (stat.isSymbolicLink()) {
        const target = await readlink(this.entry(name)).catch((error: unknown) => (codeOf(error) === 'EINVAL' || codeOf(error) === 'ENOENT' ? null : Promise.reject(error)));
        if (target === null) continue;
        await dest.makeLink(destName, target);
        return true;
      }
      if (stat.isDirectory()) {
        const dir = await this.openDir(name);
        if (dir === null) continue;
        try {
          const copy = await dest.makeDir(destName);
          try {
            for (const child of await dir.list()) await dir.copyTo(child, copy, child, budget);
          } finally {
            await copy.close();
          }
        } finally {
          await dir.close();
        }
        return true;
      }
      if (!stat.isFile()) return true;
      const read = await this.openFile(name);
      if (read.kind === 'changed') continue;
      if (read.kind === 'other') return true;
      try {
        // A hard link shares its content with another file, perhaps one outside the repository
        // (a secret the agent could link but not read): recorded as one, its content never copied.
        const links = (await read.handle.stat()).nlink;
        if (links > 1) await dest.writeNewFile(`${destName}${HARD_LINK_SUFFIX}`, Buffer.from(`a hard link (${links} names): its content is shared with another file, possibly outside the repository, and was not copied\n`), 0o600);
        else {
          // Its size as it says (a sparse file of 2 GB takes a few blocks here, and 2 GB copied): refused before a byte is read.
          const { size } = await read.handle.stat();
          if (budget && size > budget.left) throw new TooLargeToCopyError(`${this.child(name)} holds ${megabytes(size)}, more than the ${megabytes(budget.limit)} a revert backs up`);
          await dest.writeNewFile(destName, read.handle, read.mode, budget);
        }
      } finally {
        await read.handle.close();
      }
      return true;
    }
    throw new TreeRaceError(`${this.child(name)} kept changing while waves copied it (something is still writing there)`);
  }

  /** Removes the entry `name`, whatever it is (a folder with all it holds; a link, never what it points to). */
  async remove(name: string): Promise<void> {
    for (let i = 0; i < ATTEMPTS; i++) {
      const stat = await this.stat(name);
      if (stat === null) return;
      if (stat.isDirectory()) {
        const dir = await this.openDir(name);
        if (dir === null) continue;
        try {
          for (const child of await dir.list()) await dir.remove(child);
        } finally {
          await dir.close();
        }
        // A link swapped in since (ENOTDIR), new entries (ENOTEMPTY): look again.
        if (await attempt(() => rmdir(this.entry(name)), ['ENOTDIR', 'ENOTEMPTY', 'EEXIST', 'ENOENT'])) return;
      } else if (await attempt(() => unlink(this.entry(name)), ['EISDIR', 'EPERM', 'ENOENT'])) return;
    }
    throw new TreeRaceError(`${this.child(name)} kept changing while waves removed it (something is still writing there)`);
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}

/** The held folder of `rel`'s parent, walking down from `top` (made when `make`); null when a part is not a real folder. */
export async function heldParent(top: HeldDir, rel: string, make: boolean): Promise<{ dir: HeldDir; name: string; opened: HeldDir[] } | null> {
  const parts = rel.split('/').filter((p) => p !== '');
  const opened: HeldDir[] = [];
  let dir = top;
  for (const part of parts.slice(0, -1)) {
    const next = make ? await dir.makeDir(part) : await dir.openDir(part);
    if (next === null) {
      await Promise.all(opened.map((d) => d.close()));
      return null;
    }
    opened.push(next);
    dir = next;
  }
  return { dir, name: parts.at(-1) ?? path.basename(rel), opened };
}

/**
 * Calls `act` on each path of a tree (`/`-separated, from its top) in the folder that holds it,
 * walked down from the top's handle: a path with a link or a file on its way is skipped, never
 * followed. Where folders cannot be held (not Linux), each path is checked for links on its way
 * just before `act` runs on it by its plain path.
 */
async function eachInTree(tree: string, rels: readonly string[], act: (entry: string, stat: Stats, rel: string) => Promise<void>): Promise<void> {
  if (!heldDirsSupported()) {
    for (const rel of rels) {
      const parts = rel.split('/');
      let blocked = false;
      for (let i = 1; i < parts.length && !blocked; i++) {
        const stat = await lstat(path.join(tree, ...parts.slice(0, i))).catch(() => null);
        blocked = stat === null || !stat.isDirectory();
      }
      const stat = blocked ? null : await lstat(path.join(tree, rel)).catch(() => null);
      if (stat !== null) await act(path.join(tree, rel), stat, rel);
    }
    return;
  }
  const top = await HeldDir.openTop(tree, await realpath(tree));
  try {
    for (const rel of rels) {
      const held = await heldParent(top, rel, false).catch(() => null);
      if (held === null) continue;
      try {
        const stat = await held.dir.stat(held.name);
        if (stat !== null) await act(held.dir.entry(held.name), stat, rel);
      } finally {
        await Promise.all(held.opened.map((d) => d.close()));
      }
    }
  } finally {
    await top.close();
  }
}

/**
 * Removes files of a tree (`/`-separated paths from its top), never through a link: each entry
 * that is no folder is unlinked in the very folder held — a link is removed itself, never what it
 * leads to. Returns the paths it could not remove (an error, not an absence).
 */
export async function removeTreeFiles(tree: string, rels: readonly string[]): Promise<string[]> {
  const failed: string[] = [];
  await eachInTree(tree, rels, async (entry, stat, rel) => {
    if (stat.isDirectory()) return;
    await unlink(entry).catch((error: unknown) => {
      if (codeOf(error) !== 'ENOENT') failed.push(rel);
    });
  });
  return failed;
}

/** Removes empty folders of a tree (`/`-separated paths from its top), never through a link; the deepest first. */
export async function removeTreeDirs(tree: string, rels: readonly string[]): Promise<void> {
  await eachInTree(tree, [...rels].sort((a, b) => b.length - a.length), async (entry, stat) => {
    if (stat.isDirectory()) await rmdir(entry).catch(() => undefined);
  });
}
