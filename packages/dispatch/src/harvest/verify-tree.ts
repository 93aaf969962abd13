/**
 * The tree a harvest verifies in. Verification runs as the person, outside any sandbox the agent
 * had, and a test runner loads whatever its folder holds: files git ignores (`node_modules`,
 * builds), untracked ones, a folder made unreadable, a nested repository — none of which a diff
 * shows, and all of which the agent could write (a runner of its own in `node_modules/.bin`
 * decided "passed"). So it never runs in the agent's tree: a commit is made (on no branch) of the
 * run's start commit with exactly the in-fence files harvest holds for the commit, checked out
 * afresh in a detached worktree in waves' state directory — outside the repository: tools look in
 * every parent folder (npm puts each parent's `node_modules/.bin` on PATH, Node resolves parents'
 * `node_modules`), and the repository's folders are the agent's to write — set up with the setup
 * commands sealed at dispatch (the lockfile's install by default), verified there, and removed. A
 * tree a killed harvest left is removed by the next one.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { git } from './git-changes.js';
import { treeWith, type HeldFiles } from './held-blobs.js';
import { isRunning } from '../runs/process-table.js';
import { stateDir } from '../runs/state-dir.js';

/** Where the trees of the repository at `root` are checked out: in waves' state, outside every repository. */
export async function verifyDirOf(root: string): Promise<string> {
  const real = await realpath(root).catch(() => path.resolve(root));
  return path.join(stateDir(), 'verify', createHash('sha256').update(real).digest('hex').slice(0, 16));
}

const IDENTITY = ['-c', 'user.name=waves', '-c', 'user.email=waves@localhost'];

/**
 * The folder the trees of the repository at `root` go in, made if missing (readable by you alone)
 * — or why it cannot be trusted: it (or the state folder above it) is a link, not yours, or
 * writable by others, and anyone who can write there could put a runner where a tool looks for
 * one (npm searches every parent folder's `node_modules/.bin`).
 */
export async function checkedVerifyDir(root: string): Promise<{ dir: string; problem?: never } | { problem: string; dir?: never }> {
  const dir = await verifyDirOf(root);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const uid = process.getuid?.();
  for (const folder of [stateDir(), path.dirname(dir), dir]) {
    const info = await lstat(folder).catch(() => null);
    if (info === null || !info.isDirectory()) return { problem: `${folder} is not a folder (a link, or gone)` };
    if (uid !== undefined && info.uid !== uid) return { problem: `${folder} is not yours (owner ${info.uid})` };
    if ((info.mode & 0o002) !== 0) return { problem: `${folder} is writable by anyone (mode ${(info.mode & 0o777).toString(8)})` };
    if (groupWritable(info)) return { problem: `${folder} is writable by its group ${info.gid} (mode ${(info.mode & 0o777).toString(8)})` };
  }
  // And every folder above the state folder, as it really is: npm and Node look in each of them
  // (`node_modules/.bin`, `node_modules`), so one that others can write — /tmp, sticky or not —
  // lets them plant the runner a verification finds (red team I2). Yours or the system's only.
  let above = await realpath(path.dirname(stateDir())).catch(() => null);
  if (above === null) return { problem: `${path.dirname(stateDir())} cannot be resolved` };
  for (;;) {
    const info = await lstat(above).catch(() => null);
    if (info === null || !info.isDirectory()) return { problem: `${above} is not a folder` };
    if (uid !== undefined && info.uid !== uid && info.uid !== 0) return { problem: `${above}, above the state folder, is not yours nor the system's (owner ${info.uid})` };
    if ((info.mode & 0o002) !== 0) return { problem: `${above}, above the state folder, is writable by anyone (mode ${(info.mode & 0o7777).toString(8)}): a program planted in its node_modules would run as you` };
    if (groupWritable(info)) return { problem: `${above}, above the state folder, is writable by its group ${info.gid} (mode ${(info.mode & 0o7777).toString(8)}): a program a member planted in its node_modules would run as you` };
    const parent = path.dirname(above);
    if (parent === above) break;
    above = parent;
  }
  return { dir };
}

/**
 * Whether a folder's group may write it and that group may hold others than you (red team J4): a
 * team folder (2775), or one of macOS's `staff`. Yours, with your own primary group that nobody
 * else is in (a private group, as most Linux systems give each user, whose umask 002 makes
 * folders 775), is not counted; a group /etc/group and /etc/passwd do not show is.
 */
function groupWritable(info: { mode: number; uid: number; gid: number }): boolean {
  if ((info.mode & 0o020) === 0) return false;
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  if (uid === undefined || gid === undefined || info.uid !== uid || info.gid !== gid) return true;
  return groupHasOthers(gid);
}

function groupHasOthers(gid: number): boolean {
  let me: string;
  let passwd: string;
  let groups: string;
  try {
    me = userInfo().username;
    passwd = readFileSync('/etc/passwd', 'utf8');
    groups = readFileSync('/etc/group', 'utf8');
  } catch {
    return true;
  }
  const rows = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).map((l) => l.split(':'));
  if (rows(passwd).some((f) => f[3] === String(gid) && f[0] !== me)) return true;
  const group = rows(groups).find((f) => f[2] === String(gid));
  if (group === undefined) return true;
  return (group[3] ?? '').split(',').some((m) => m.trim() !== '' && m.trim() !== me);
}

/** Removes the trees, in `dir`, of harvests that are gone (killed while they verified). */
async function removeStale(root: string, dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  let removed = false;
  for (const name of names) {
    const pid = Number(/-(\d+)$/.exec(name)?.[1] ?? Number.NaN);
    if (Number.isSafeInteger(pid) && pid !== process.pid && isRunning(pid)) continue;
    await git(root, ['worktree', 'remove', '--force', path.join(dir, name)]).catch(() => undefined);
    await rm(path.join(dir, name), { recursive: true, force: true });
    removed = true;
  }
  if (removed) await git(root, ['worktree', 'prune']).catch(() => undefined);
}

/**
 * Runs `fn` in a fresh detached worktree of `root` at `head` (the commit the run started from, or
 * nothing) with `held` over it, made in `verifyDir` (from `checkedVerifyDir`); the worktree is
 * removed afterwards, whatever happens.
 */
export async function withVerifyTree<T>(root: string, verifyDir: string, runTree: string, head: string | null, held: HeldFiles, label: string, fn: (dir: string) => Promise<T>): Promise<T> {
  await removeStale(root, verifyDir);
  const scratch = await mkdtemp(path.join(tmpdir(), 'waves-verify-'));
  let commit: string;
  try {
    const tree = await treeWith(runTree, head, held, path.join(scratch, 'index'));
    commit = (await git(runTree, [...IDENTITY, 'commit-tree', tree, ...(head ? ['-p', head] : []), '-m', 'waves: what a harvest verifies (on no branch)'])).trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const dir = path.join(verifyDir, `${label.replace(/[^\w.-]/g, '_')}-${process.pid}`);
  await rm(dir, { recursive: true, force: true });
  await git(root, ['worktree', 'add', '--detach', '--quiet', dir, commit]);
  try {
    return await fn(dir);
  } finally {
    await git(root, ['worktree', 'remove', '--force', dir]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    await git(root, ['worktree', 'prune']).catch(() => undefined);
  }
}
