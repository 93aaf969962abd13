/**
 * What an agent could plant in `.git` to act when waves later runs git there: hooks, config
 * (filters, fsmonitor, hooksPath, signing programs), `info/` (attributes, excludes), and a
 * worktree's own config and the pointers that say where its repository is. Dispatch records a
 * digest of each when a run starts; the harvest reads them again, from the paths recorded then
 * (never asking git, which would read the new config), and reports every difference.
 *
 * Read without following links: a link is recorded as its target text, a folder is walked, any
 * other kind (a FIFO that would block a reader) is recorded by its kind only.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { git } from './git-changes.js';

export interface GitState {
  gitDir: string;
  commonDir: string;
  entries: Record<string, string>;
}

/** Bigger files are recorded by size and time: a hook is small, a huge planted file is a change anyway. */
const MAX_HASHED = 8 * 1024 * 1024;
/** An agent could fill a folder with files; past this many, the rest is summed up as a count. */
const MAX_ENTRIES = 2_000;

/** The `.git` state of the work tree `cwd`, as git locates it now (at dispatch, before the agent starts). */
export async function readGitState(cwd: string): Promise<GitState> {
  const gitDir = path.resolve(cwd, (await git(cwd, ['rev-parse', '--absolute-git-dir'])).trim());
  const commonDir = path.resolve(cwd, (await git(cwd, ['rev-parse', '--git-common-dir'])).trim());
  return { gitDir, commonDir, entries: await readGitEntries(cwd, gitDir, commonDir) };
}

/** The digests of the entries that matter, read from known paths. */
export async function readGitEntries(cwd: string, gitDir: string, commonDir: string): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  const label = (file: string) => {
    const rel = path.relative(commonDir, file);
    return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel.split(path.sep).join('/');
  };
  const add = async (file: string, name: string): Promise<void> => {
    if (Object.keys(entries).length >= MAX_ENTRIES) {
      entries['…'] = String(Number(entries['…'] ?? 0) + 1);
      return;
    }
    const digest = await digestOf(file);
    if (digest === null) return;
    entries[name] = digest;
    if (digest === 'dir') {
      for (const child of (await readdir(file).catch(() => [] as string[])).sort()) await add(path.join(file, child), `${name}/${child}`);
    }
  };
  // The work tree's own .git: a folder, or a file pointing at its git dir (not walked: the
  // folder's parts that matter are read below).
  const own = await digestOf(path.join(cwd, '.git'));
  if (own !== null) entries['.git'] = own;
  for (const dir of new Set([commonDir, gitDir])) {
    for (const name of ['config', 'config.worktree', 'commondir', 'gitdir', 'hooks', 'info']) await add(path.join(dir, name), label(path.join(dir, name)));
  }
  return entries;
}

/** A digest of one entry, never following a link: null when it is not there. */
async function digestOf(file: string): Promise<string | null> {
  const stat = await lstat(file).catch(() => null);
  if (stat === null) return null;
  if (stat.isSymbolicLink()) return `link:${await readlink(file)}`;
  if (stat.isDirectory()) return 'dir';
  if (!stat.isFile()) return `other:${stat.mode.toString(8)}`;
  if (stat.size > MAX_HASHED) return `large:${stat.size}:${stat.mtimeMs}`;
  // O_NOFOLLOW: a file swapped for a link since the lstat is not read through.
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return `unreadable:${stat.size}`;
  try {
    return `sha256:${createHash('sha256').update(await handle.readFile()).digest('hex')}`;
  } finally {
    await handle.close();
  }
}

export interface GitStateChange {
  entry: string;
  change: 'added' | 'removed' | 'modified';
}

/** What differs between two readings of the same entries. */
export function gitStateChanges(before: Record<string, string>, after: Record<string, string>): GitStateChange[] {
  const out: GitStateChange[] = [];
  for (const entry of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    if (before[entry] === after[entry]) continue;
    out.push({ entry, change: before[entry] === undefined ? 'added' : after[entry] === undefined ? 'removed' : 'modified' });
  }
  return out;
}

/**
 * True for an entry that changes what git runs or where it looks (config, attributes, the
 * pointers to the repository): after such a change, running git there could run what the agent
 * configured. Hooks do not count (waves runs git with hooks off), nor excludes (the harvest lists
 * untracked files without them).
 */
export function changesWhatGitRuns(entry: string): boolean {
  const name = entry.split('/').at(-1)!;
  return entry === '.git' || ['config', 'config.worktree', 'commondir', 'gitdir'].includes(name) || /(?:^|\/)info\/attributes$/.test(entry);
}
