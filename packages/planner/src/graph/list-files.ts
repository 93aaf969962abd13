/**
 * Adapter: the file list of a repository. In a git checkout, `git ls-files` (tracked files plus
 * untracked ones that are not ignored, minus deleted ones), so ignores are honoured; elsewhere a
 * walk that skips dependency and build output folders. Paths are POSIX and relative to the root.
 */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { execaGit, GitTimeoutError } from './git-run.js';
import { InputError } from '../errors.js';
import { SAFE_GIT_CONFIG } from './git-options.js';
import type { RepoPath } from '../types.js';

/** Folders a walk never enters (git checkouts use ignores instead). */
export const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', 'coverage', '.git', '.waves', '.dispatch-runs']);

export interface RepoListing {
  files: RepoPath[];
  /** The commit checked out, or null outside git or before the first commit. */
  head: string | null;
  git: boolean;
  /** Blob ids of tracked files whose content matches the index (used by the graph cache). */
  blobIds: Map<RepoPath, string>;
  /** Symbolic links, tracked (mode 120000) or not, where they lead not yet judged. */
  links?: RepoPath[];
  /** Files whose names are not valid UTF-8, as shown (U+FFFD for what cannot be read): left out of `files`. */
  unnamed?: string[];
}

function splitZ(stdout: string): string[] {
  return stdout.split('\0').filter((s) => s.length > 0);
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Git's NUL-separated output as text, entry by entry: an entry that is not valid UTF-8 (a file
 * name of raw bytes) goes to `bad`, shown with U+FFFD, never into the list — decoded lossily, two
 * such names became one, and the file, opened by a name it does not have, lost its imports unseen.
 */
function splitZBytes(stdout: Uint8Array, bad: string[]): string[] {
  const bytes = Buffer.from(stdout.buffer, stdout.byteOffset, stdout.byteLength);
  const out: string[] = [];
  let at = 0;
  while (at < bytes.length) {
    let end = bytes.indexOf(0, at);
    if (end < 0) end = bytes.length;
    if (end > at) {
      const entry = bytes.subarray(at, end);
      try {
        out.push(STRICT_UTF8.decode(entry));
      } catch {
        bad.push(entry.toString('utf8'));
      }
    }
    at = end + 1;
  }
  return out;
}

async function listGit(root: string): Promise<RepoListing> {
  // Hooks and fsmonitor off (git-options.ts): the listing runs in the person's repository, at plan, dispatch and harvest.
  const git = (args: string[]) => execaGit([...SAFE_GIT_CONFIG, '-c', 'core.quotepath=off', ...args], { cwd: root, stdin: 'ignore', maxBuffer: 1024 * 1024 * 1024, stripFinalNewline: false, encoding: 'buffer' });
  const unnamed: string[] = [];
  // One pass over the index (tags: H cached, R deleted, C modified) and one over the work tree.
  const [tracked, others, head] = await Promise.all([
    git(['ls-files', '-z', '-t', '--stage', '--cached', '--deleted', '--modified']),
    git(['ls-files', '-z', '--others', '--exclude-standard']),
    execaGit([...SAFE_GIT_CONFIG, 'rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: root, reject: false, stdin: 'ignore' }),
  ]);
  const gone = new Set<RepoPath>();
  const changed = new Set<RepoPath>();
  const staged: { mode: string; object: string; file: RepoPath }[] = [];
  for (const entry of splitZBytes(tracked.stdout, unnamed)) {
    // <tag> <mode> <object> <stage>\t<path>
    const tab = entry.indexOf('\t');
    const [tag, mode, object] = entry.slice(0, tab).split(' ') as [string, string, string];
    const file = entry.slice(tab + 1);
    if (tag === 'R') gone.add(file);
    else if (tag === 'C') changed.add(file);
    else staged.push({ mode, object, file });
  }
  const files = new Set<RepoPath>();
  const blobIds = new Map<RepoPath, string>();
  const links: RepoPath[] = [];
  for (const { mode, object, file } of staged) {
    if (mode === '160000' || gone.has(file)) continue; // submodules, deleted files
    files.add(file);
    // A link's blob is its target's path, not what waves reads through it: a link is known by the
    // content it leads to (hashed when read), or the imports of a changed target stayed cached.
    if (mode === '120000') links.push(file);
    else if (!changed.has(file)) blobIds.set(file, object);
  }
  const untracked = splitZBytes(others.stdout, unnamed);
  for (const file of untracked) files.add(file);
  // Untracked links too (a tool or an earlier agent left one): git lists them as files.
  links.push(...(await symbolicLinks(root, untracked)));
  // waves' own state is never part of the repository, even where it is not ignored.
  for (const file of files) if (file.startsWith('.waves/') || file.startsWith('.dispatch-runs/')) files.delete(file);
  return {
    files: [...files].sort(),
    head: head.exitCode === 0 ? head.stdout.trim() || null : null,
    git: true,
    blobIds,
    links,
    ...(unnamed.length > 0 ? { unnamed: [...new Set(unnamed.map((entry) => entry.slice(entry.indexOf('\t') + 1)))].sort() } : {}),
  };
}

/** Which of these paths are symbolic links (lstat, a few hundred at a time). */
async function symbolicLinks(root: string, paths: readonly RepoPath[]): Promise<RepoPath[]> {
  const out: RepoPath[] = [];
  for (let i = 0; i < paths.length; i += 256) {
    const batch = paths.slice(i, i + 256);
    const infos = await Promise.all(batch.map((p) => lstat(path.join(root, p)).catch(() => null)));
    batch.forEach((p, k) => {
      if (infos[k]?.isSymbolicLink()) out.push(p);
    });
  }
  return out;
}

async function walk(root: string): Promise<{ files: RepoPath[]; links: RepoPath[] }> {
  const out: RepoPath[] = [];
  const links: RepoPath[] = [];
  const visit = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(path.join(root, rel), { withFileTypes: true });
    } catch (error) {
      // A directory waves cannot list is an answer about the root, not a bug in waves.
      const code = (error as NodeJS.ErrnoException).code;
      throw new InputError(`root ${root}: cannot list ${rel === '' ? 'it' : rel} (${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? (error as Error).message)})`);
    }
    await Promise.all(
      entries.map(async (entry) => {
        const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRS.has(entry.name)) await visit(child);
        } else if (entry.isFile()) out.push(child);
        // A link is a file of the listing as git's would be, and judged as git's are (where it leads).
        else if (entry.isSymbolicLink()) {
          out.push(child);
          links.push(child);
        }
      }),
    );
  };
  await visit('');
  return { files: out.sort(), links: links.sort() };
}

/** Lists the files of the repository at `root` (which must exist and be a directory). */
export async function listRepoFiles(root: string): Promise<RepoListing> {
  try {
    return await listGit(root);
  } catch (error) {
    // git blocked (a FIFO it opened) is no "not a checkout": walking would list the wrong files.
    if (error instanceof GitTimeoutError) throw error;
    // Not a git checkout (or no git): walk the directory.
    const { files, links } = await walk(root);
    return { files, head: null, git: false, blobIds: new Map(), links };
  }
}
