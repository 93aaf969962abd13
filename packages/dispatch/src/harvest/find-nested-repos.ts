/**
 * Nested git repositories a run made: a gitlink (mode 160000) it added or changed — staged in the
 * index or in its own commits — and a `.git` (folder or file) it left in a folder of the work
 * tree. git does not look inside a nested repository the way it looks at files: its contents are
 * never diffed, fenced or committed, only the commit id a gitlink records; and any git command run
 * inside it (a person's `git status` there, a submodule status) runs its own config — its filters,
 * its fsmonitor, its hooks. The harvest never enters one (git runs with `diff.ignoreSubmodules=dirty`
 * and `submodule.recurse=false`, see SAFE_GIT_CONFIG) and never commits one: a person looks.
 *
 * Found without entering any: gitlinks from the index and the agent's commits, compared with the
 * base commit's; an untracked nested repository is listed by git as `dir/` (git does not descend
 * into it); a `.git` in a folder git does descend into (one that holds tracked files) is looked up
 * with lstat in each such folder.
 */
import path from 'node:path';
import type { ChangedPath } from '@waves/planner';
import { git } from './git-changes.js';
import { lstatInTree } from './path-links.js';

export interface NestedRepo {
  path: string;
  /** How it shows: a gitlink in the index or the agent's commits, or a `.git` in the work tree. */
  kind: 'gitlink' | 'nested';
}

/** waves' own state, never an agent's work. */
const OWN_STATE = /^(?:\.waves|\.dispatch-runs)(?:\/|$)/;

function splitZ(text: string): string[] {
  const parts = text.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}

/** The gitlinks of a `git ls-tree -r -z` or `git ls-files -s -z` listing: path → commit id. */
function gitlinksOf(listing: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of splitZ(listing)) {
    const tab = entry.indexOf('\t');
    const [mode, second, third] = entry.slice(0, tab).split(' ');
    if (mode !== '160000') continue;
    // ls-tree: `<mode> commit <id>`; ls-files -s: `<mode> <id> <stage>`.
    out.set(entry.slice(tab + 1), second === 'commit' ? third! : second!);
  }
  return out;
}

export async function findNestedRepos(cwd: string, base: string | null, head: string | null, changes: readonly ChangedPath[]): Promise<NestedRepo[]> {
  const found = new Map<string, NestedRepo>();
  const atBase = base === null ? new Map<string, string>() : gitlinksOf(await git(cwd, ['ls-tree', '-r', '-z', base]));
  const index = await git(cwd, ['ls-files', '-s', '-z']);
  const lists = [gitlinksOf(index)];
  if (head !== null && head !== base) lists.push(gitlinksOf(await git(cwd, ['ls-tree', '-r', '-z', head])));
  for (const links of lists) {
    for (const [file, id] of links) if (atBase.get(file) !== id) found.set(file, { path: file, kind: 'gitlink' });
  }
  // Untracked: git lists a nested repository as `dir/` and does not look inside.
  for (const change of changes) {
    if (change.change !== 'deleted' && change.path.endsWith('/')) {
      const dir = change.path.replace(/\/+$/, '');
      if (!found.has(dir)) found.set(dir, { path: dir, kind: 'nested' });
    }
  }
  // Folders git walks (they hold tracked files): a .git there hides their new files from git.
  const dirs = new Set<string>();
  for (const entry of splitZ(index)) {
    const file = entry.slice(entry.indexOf('\t') + 1);
    for (let dir = path.posix.dirname(file); dir !== '.' && !dirs.has(dir); dir = path.posix.dirname(dir)) dirs.add(dir);
  }
  const candidates = [...dirs].filter((dir) => !found.has(dir) && !atBase.has(dir) && !OWN_STATE.test(dir));
  const hasGit = await Promise.all(candidates.map(async (dir) => (await lstatInTree(cwd, `${dir}/.git`)) !== null));
  candidates.forEach((dir, i) => {
    if (hasGit[i]) found.set(dir, { path: dir, kind: 'nested' });
  });
  return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** One line for the reason. */
export function describeNestedRepos(repos: readonly NestedRepo[]): string {
  const one = (r: NestedRepo) => `${r.path} (${r.kind === 'gitlink' ? 'a gitlink: a commit of another repository' : 'a nested git repository'})`;
  const shown = repos.slice(0, 5).map(one).join(', ');
  return `nested git repositories: ${shown}${repos.length > 5 ? ` and ${repos.length - 5} more` : ''}: waves never looks inside one nor commits it (git there runs that repository's own config), a person must look`;
}
