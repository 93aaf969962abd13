/**
 * Adapter: the repository as it was at a past commit, for `waves backtest` — a temporary, detached
 * git worktree under `<root>/.waves/backtest/<pid>-<commit>`, removed when the work is done, on
 * error and on Ctrl-C (a run killed outright leaves one that the next backtest removes: its
 * process is gone). Hooks never run; the checkout must be exactly the commit (a filter or an
 * attribute that rewrites files on checkout makes a dirty base: an error of input).
 *
 * NOTE: the worktree is sparse. Every file of the commit is in its index (so `git ls-files` lists
 * the whole tree with blob ids), but only the files the caller will read are written: checking
 * out 26,000 files costs seconds to tens of seconds on a busy disk, and the graph needs the
 * manifests and the sources its cache does not hold. The sparse patterns go to the worktree's own
 * `info/sparse-checkout` and `core.sparseCheckout` is set for one command only: the repository's
 * config is never changed.
 */
import { lstat, mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execaGit } from '@waves/planner';
import { InputError, SAFE_GIT_CONFIG, type CheckoutPatterns } from '@waves/planner';

/** A file of the commit. */
export interface TreeEntry {
  path: string;
  blob: string;
  link: boolean;
  /** Bytes of the blob; null when the clone lacks it (a partial clone, a snapshot without its largest files). */
  size: number | null;
}

function git(cwd: string, args: readonly string[]) {
  return execaGit([...SAFE_GIT_CONFIG, '-c', 'core.quotepath=off', ...args], {
    cwd,
    stdin: 'ignore',
    reject: false,
    maxBuffer: 256 * 1024 * 1024,
  });
}

const ENTRY = /^(\d+)-[0-9a-f]{12}$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `.waves` and `.waves/backtest` must be real directories: never create or delete through a link a clone planted. */
async function checkNoLink(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => null);
  if (info && !info.isDirectory()) throw new InputError(`${dir}: not a directory (a link or a file): waves keeps its temporary worktrees there`);
}

async function removeWorktree(root: string, dir: string): Promise<void> {
  const removed = await git(root, ['worktree', 'remove', '--force', '--force', dir]);
  if (removed.exitCode !== 0) {
    await rm(dir, { recursive: true, force: true });
    await git(root, ['worktree', 'prune']);
  }
}

/** Worktrees of earlier backtests whose process is gone (killed outright). */
async function sweepStale(root: string, parent: string): Promise<void> {
  const list = await git(root, ['worktree', 'list', '--porcelain', '-z']);
  if (list.exitCode !== 0) return;
  for (const field of list.stdout.split('\0')) {
    if (!field.startsWith('worktree ')) continue;
    const dir = field.slice('worktree '.length);
    if (path.dirname(dir) !== parent) continue;
    const match = ENTRY.exec(path.basename(dir));
    if (match && Number(match[1]) !== process.pid && !alive(Number(match[1]))) await removeWorktree(root, dir);
  }
}

/** Why a fresh checkout differs from its commit, or null when it does not. */
async function dirtyReason(dir: string): Promise<string | null> {
  const status = await git(dir, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=all']);
  if (status.exitCode !== 0) return `git status failed: ${status.stderr.split('\n')[0]}`;
  const paths = status.stdout.split('\0').filter((entry) => entry.length > 3).map((entry) => entry.slice(3));
  if (paths.length === 0) return null;
  return `${paths[0]}${paths.length > 1 ? ` and ${paths.length - 1} more path(s)` : ''} differ(s) from the commit once checked out (a filter or an attribute of the repository rewrites it on checkout)`;
}

/** Every file of a commit, with its blob id and size (submodules left out). */
async function listTree(root: string, commit: string): Promise<TreeEntry[]> {
  const tree = await git(root, ['ls-tree', '-r', '-l', '-z', '--full-tree', commit]);
  if (tree.exitCode !== 0) throw new Error(`git ls-tree ${commit.slice(0, 12)} failed: ${tree.stderr.split('\n')[0]}`);
  const entries: TreeEntry[] = [];
  for (const record of tree.stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    // `<mode> <type> <blob> <size, padded>`: the size right-aligned after spaces, `BAD` for a blob the clone lacks.
    const [mode, type, blob, ...rest] = record.slice(0, tab).split(' ');
    const size = Number(rest.filter((part) => part !== '').join('') || 'NaN');
    if (type === 'blob' && blob) entries.push({ path: record.slice(tab + 1), blob, link: mode === '120000', size: Number.isSafeInteger(size) ? size : null });
  }
  return entries;
}

/** The first line git wrote that says something (its own progress lines aside), or null. */
function firstLine(stderr: string): string | null {
  return stderr.split('\n').find((line) => line.trim() !== '' && !line.startsWith('Preparing worktree')) ?? null;
}

/** A path as a sparse-checkout pattern that matches it alone (gitignore syntax, anchored). */
function literalPattern(file: string): string {
  return `/${file.replace(/[\\*?[\]!#]/g, '\\$&').replace(/ $/, '\\ ')}`;
}

/**
 * Checks out `commit` in a temporary worktree — only the files `select` names, or all of them
 * when it says null — runs `work` in it and removes it, whatever happens. `root` must be the top
 * of a git work tree.
 */
export async function withBaseWorktree<T>(
  root: string,
  commit: string,
  work: (dir: string) => Promise<T>,
  select?: (files: TreeEntry[]) => Promise<CheckoutPatterns | null>,
): Promise<T> {
  const state = path.join(root, '.waves');
  const parent = path.join(state, 'backtest');
  await checkNoLink(state);
  await mkdir(state, { recursive: true });
  // waves' state never shows in git status.
  await writeFile(path.join(state, '.gitignore'), '*\n', { flag: 'wx' }).catch(() => undefined);
  await checkNoLink(parent);
  await mkdir(parent, { recursive: true });
  await sweepStale(root, await realpath(parent));
  const dir = path.join(parent, `${process.pid}-${commit.slice(0, 12)}`);
  try {
    const chosen = select ? await select(await listTree(root, commit)) : null;
    // A path with a line break cannot be a pattern line: then the whole tree.
    const patterns = chosen && ![...chosen.paths, ...chosen.exclude].some((p) => /[\n\r]/.test(p)) ? chosen : null;
    const added = await git(root, ['worktree', 'add', '--detach', '--quiet', ...(patterns ? ['--no-checkout'] : []), dir, commit]);
    if (added.exitCode !== 0) throw new InputError(`the checkout of the base ${commit.slice(0, 12)} failed: ${firstLine(added.stderr) ?? `git worktree add exited with ${added.exitCode}`}`);
    if (patterns) {
      const file = (await git(dir, ['rev-parse', '--path-format=absolute', '--git-path', 'info/sparse-checkout'])).stdout.trim();
      await mkdir(path.dirname(file), { recursive: true });
      // The exclusions last: a later line wins over the globs before it.
      const lines = [...patterns.globs, ...patterns.paths.map(literalPattern), ...patterns.exclude.map((p) => `!${literalPattern(p)}`)];
      await writeFile(file, lines.map((line) => `${line}\n`).join(''));
      const read = await git(dir, ['-c', 'core.sparseCheckout=true', '-c', 'core.sparseCheckoutCone=false', 'read-tree', '-mu', 'HEAD']);
      // A blob the clone lacks (a partial clone with no remote to fetch it from) is the repository's state, not waves' fault.
      if (read.exitCode !== 0) throw new InputError(`the checkout of the base ${commit.slice(0, 12)} failed: ${firstLine(read.stderr) ?? `git read-tree exited with ${read.exitCode}`}`);
    }
    const dirty = await dirtyReason(dir);
    if (dirty) throw new InputError(`the base ${commit.slice(0, 12)} does not check out clean: ${dirty}`);
    return await work(dir);
  } finally {
    await removeWorktree(root, dir);
  }
}
