/**
 * The check of a commit waves just made: the paths it holds, as git says, against the paths
 * waves meant to commit. Hooks are off, but git can still be made to add what nobody asked
 * (a config an agent changed, a git that behaves otherwise): a commit that holds anything else,
 * or lacks a path, is undone — the branch goes back to where it was — and a person must look.
 */
import { git } from './git-changes.js';

export type CommitCheck = { ok: true } | { ok: false; extra: string[]; missing: string[] };

/** The paths a commit changed against its first parent (every path, for a root commit). */
export async function committedPaths(cwd: string, sha: string): Promise<string[]> {
  const parents = (await git(cwd, ['rev-list', '--parents', '-n', '1', sha])).trim().split(' ').slice(1);
  const out = await git(cwd, ['-c', 'core.quotepath=off', 'diff-tree', '--no-commit-id', '--name-only', '--no-renames', '-r', '-z', ...(parents.length === 0 ? ['--root'] : []), sha]);
  return out.split('\0').filter((p) => p !== '').sort();
}

/** Compares what a commit holds with what was meant. */
export async function checkCommit(cwd: string, sha: string, meant: readonly string[]): Promise<CommitCheck> {
  const held = new Set(await committedPaths(cwd, sha));
  const wanted = new Set(meant);
  const extra = [...held].filter((p) => !wanted.has(p)).sort();
  const missing = [...wanted].filter((p) => !held.has(p)).sort();
  return extra.length === 0 && missing.length === 0 ? { ok: true } : { ok: false, extra, missing };
}

/**
 * Undoes the commit at HEAD: the branch goes back to `previous` (or loses its only commit), the
 * work tree is left as it is and the index keeps what the commit held, for a person to see.
 */
export async function undoCommit(cwd: string, previous: string | null): Promise<void> {
  if (previous === null) await git(cwd, ['update-ref', '-d', 'HEAD']);
  else await git(cwd, ['reset', '--soft', '--quiet', previous]);
}
