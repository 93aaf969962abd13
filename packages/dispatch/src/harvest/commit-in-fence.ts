/**
 * The commit of a clean run: exactly its in-fence paths still uncommitted, by explicit path (never
 * `git add -A`), on the issue's branch — or, without worktrees, on the current branch — with the
 * subject `type(lane): title (#N)` and a `Waves-Run` trailer, then checked against what was meant
 * (check-commit.ts) and undone when it holds anything else.
 */
import { cutText, inFence, touchedPaths, type ChangedPath } from '@waves/planner';
import type { RunRecord, Witness } from '../runs/run-record.js';
import { checkCommit, undoCommit } from './check-commit.js';
import { changesSince, currentBranch, git, GitError, headCommit } from './git-changes.js';
import { lstatInTree } from './path-links.js';

const list = (paths: readonly string[], max = 5) => (paths.length <= max ? paths.join(', ') : `${paths.slice(0, max).join(', ')} and ${paths.length - max} more`);

/** The longest commit subject waves writes (characters): a title is cut to fit, with an ellipsis. */
export const MAX_SUBJECT_CHARS = 200;

/** `type(lane): title (#N)`: one line of at most MAX_SUBJECT_CHARS, whatever the issue's title holds. */
export function commitSubject(record: RunRecord, type: string | null): string {
  const labels = record.scope?.labels ?? [];
  const chosen = type ?? (labels.some((l) => /(?:^|[:/]\s*)bug$/i.test(l.trim())) ? 'fix' : 'feat');
  // The lane's last segment: `packages/api` → `api`.
  const lane = (record.scope?.lanes[0] ?? '').replace(/\/+$/, '').split('/').at(-1)!.replace(/[^\w./@-]+/g, '-').replace(/^-+|-+$/g, '');
  // eslint-disable-next-line no-control-regex
  const title = record.issue.title.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]+/g, ' ').replace(/\s+/g, ' ').trim();
  const head = `${chosen}${lane ? `(${cutText(lane, 40)})` : ''}: `;
  const tail = ` (#${record.issue.number})`;
  return `${head}${cutText(title, Math.max(20, MAX_SUBJECT_CHARS - [...head].length - tail.length))}${tail}`;
}

/**
 * The whole commit message: the subject, then the `Waves-Run` trailer. It goes to `git commit -F -`
 * on standard input, never as an argument: no title can make the command too long (E2BIG).
 */
export function commitMessage(record: RunRecord, type: string | null): string {
  return `${commitSubject(record, type)}\n\nWaves-Run: ${record.id}\n`;
}

export type CommitOutcome = { kind: 'committed'; commit: NonNullable<Witness['commit']> } | { kind: 'nothing'; why: string } | { kind: 'refused'; why: string };

/** Commits exactly the in-fence paths still uncommitted, by explicit path, on the issue's branch. */
export async function commitInFence(
  record: RunRecord,
  cwd: string,
  inFenceChanges: readonly ChangedPath[],
  fence: readonly string[],
  type: string | null,
  signoff: boolean,
): Promise<CommitOutcome> {
  if (record.worktree) {
    const branch = await currentBranch(cwd);
    if (branch !== record.worktree.branch) return { kind: 'refused', why: `its worktree is on ${branch ?? 'a detached HEAD'}, not ${record.worktree.branch}: not committing there` };
  }
  const pending = await changesSince(cwd, await headCommit(cwd));
  if (record.worktree) {
    // The branch is the run's own: anything uncommitted outside the fence is a revert of the agent's own commits.
    const outside = pending.flatMap(touchedPaths).filter((p) => !inFence(fence, p));
    if (outside.length > 0) return { kind: 'refused', why: `${list(outside)} outside the fence differ from the branch's last commit (the agent committed them): not committing` };
  }
  const wanted = new Set(inFenceChanges.flatMap(touchedPaths));
  const paths = [...new Set(pending.flatMap(touchedPaths))].filter((p) => wanted.has(p)).sort();
  if (paths.length === 0) return { kind: 'nothing', why: 'nothing left to commit: the in-fence changes are already committed on the branch' };
  const present: string[] = [];
  for (const p of paths) if ((await lstatInTree(cwd, p)) !== null) present.push(p);
  const gone = paths.filter((p) => !present.includes(p));
  const message = commitMessage(record, type);
  const previous = await headCommit(cwd);
  try {
    if (present.length > 0) await git(cwd, ['add', '--', ...present]);
    if (gone.length > 0) await git(cwd, ['rm', '--cached', '--quiet', '--ignore-unmatch', '--', ...gone]);
    // Hooks are off (GIT_OPTIONS): nothing runs at commit time that could add to it.
    await git(cwd, ['commit', '--quiet', ...(signoff ? ['--signoff'] : []), '-F', '-', '--', ...paths], message);
  } catch (error) {
    if (error instanceof GitError) return { kind: 'refused', why: error.message };
    throw error;
  }
  const sha = (await headCommit(cwd)) ?? '';
  // The commit must hold exactly what was meant, as git says: else the branch goes back.
  const check = await checkCommit(cwd, sha, paths);
  if (!check.ok) {
    await undoCommit(cwd, previous);
    const what = [check.extra.length > 0 ? `held ${list(check.extra)} too` : '', check.missing.length > 0 ? `lacked ${list(check.missing)}` : ''].filter(Boolean).join(' and ');
    return { kind: 'refused', why: `the commit waves made (${sha.slice(0, 10)}) ${what}: the branch is back at ${previous ? previous.slice(0, 10) : 'no commit'}, a person must look` };
  }
  const written = (await git(cwd, ['log', '-1', '--format=%B', sha])).trim();
  return { kind: 'committed', commit: { sha, message: written, paths } };
}
