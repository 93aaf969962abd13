/**
 * The commit of a clean run: exactly the in-fence blobs verification checked (held-blobs.ts), on
 * the issue's branch — or, without worktrees, on the current branch — with the subject
 * `type(lane): title (#N)` and a `Waves-Run` trailer. It is built, not staged: the held blobs go
 * into a temporary index over the branch's last commit (GIT_INDEX_FILE), `git write-tree`,
 * `git commit-tree`, then `git update-ref` from the commit it was built on (the branch moved
 * meanwhile: nothing is committed). What git then says the commit holds is checked against what
 * was meant (check-commit.ts) and the branch goes back when it holds anything else. A commit of
 * this run that a harvest killed right after making it left on the branch (its trailer, its tree
 * the verified one) is adopted, not made again.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execaGit } from '@waves/planner';
import { cutText, inFence } from '@waves/planner';
import type { RunRecord, Witness } from '../runs/run-record.js';
import { checkCommit, committedPaths } from './check-commit.js';
import { changesSince, currentBranch, git, GIT_OPTIONS, GitError, headCommit } from './git-changes.js';
import { indexInfo, treeWith, type HeldFiles } from './held-blobs.js';

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
 * The whole commit message: the subject, then the `Waves-Run` trailer. It goes to `git commit-tree -F -`
 * on standard input, never as an argument: no title can make the command too long (E2BIG).
 */
export function commitMessage(record: RunRecord, type: string | null): string {
  return `${commitSubject(record, type)}\n\nWaves-Run: ${record.id}\n`;
}

export type CommitOutcome =
  | { kind: 'committed'; commit: NonNullable<Witness['commit']>; adopted?: boolean }
  | { kind: 'nothing'; why: string }
  | { kind: 'refused'; why: string };

/** Whether a commit message's last paragraph carries this trailer line. */
export function hasTrailer(message: string, trailer: string): boolean {
  const paragraphs = message.trim().split(/\n\s*\n/);
  return paragraphs.length > 1 && paragraphs.at(-1)!.split('\n').some((line) => line.trim() === trailer);
}

/** Commits exactly the held in-fence blobs (what verification checked) on the issue's branch. */
export async function commitInFence(
  record: RunRecord,
  cwd: string,
  held: HeldFiles,
  fence: readonly string[],
  type: string | null,
  signoff: boolean,
  signing: readonly string[] = [],
  /** A file in waves' state where the commit about to go on the branch is noted first: only that one is ever adopted. */
  intent: string | null = null,
): Promise<CommitOutcome> {
  if (record.worktree) {
    const branch = await currentBranch(cwd);
    if (branch !== record.worktree.branch) return { kind: 'refused', why: `its worktree is on ${branch ?? 'a detached HEAD'}, not ${record.worktree.branch}: not committing there` };
  }
  const previous = await headCommit(cwd);
  if (record.worktree) {
    // The branch is the run's own: anything uncommitted outside the fence is a revert of the agent's own commits.
    const pending = await changesSince(cwd, previous);
    const outside = pending.flatMap((c) => (c.from ? [c.from, c.path] : [c.path])).filter((p) => !inFence(fence, p));
    if (outside.length > 0) return { kind: 'refused', why: `${list(outside)} outside the fence differ from the branch's last commit (the agent committed them): not committing` };
  }
  const entries: HeldFiles = new Map([...held].filter(([p]) => inFence(fence, p)));
  const odd = [...entries].filter(([, e]) => e.kind === 'other').map(([p]) => p);
  if (odd.length > 0) return { kind: 'refused', why: `${list(odd)} in the fence ${odd.length === 1 ? 'is' : 'are'} not a regular file: not committing` };
  const trailer = `Waves-Run: ${record.id}`;
  try {
    const scratch = await mkdtemp(path.join(tmpdir(), 'waves-commit-'));
    let tree: string;
    try {
      tree = await treeWith(cwd, previous, entries, path.join(scratch, 'index'));
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
    const headTree = previous === null ? null : (await git(cwd, ['rev-parse', `${previous}^{tree}`])).trim();
    if (tree === headTree) {
      // The verified content is the branch's already. Made by a harvest of this run that was killed
      // before it wrote its witness (its trailer, in-fence paths only, not the start): adopted.
      if (previous !== null && previous !== (record.start?.head ?? null)) {
        const message = (await git(cwd, ['log', '-1', '--format=%B', previous])).trim();
        const paths = await committedPaths(cwd, previous);
        // Only the commit a harvest noted before it moved the branch: an agent knows its run's id,
        // and can write the trailer on a commit of its own (its subject, author and date).
        const noted = intent === null ? null : ((await readFile(intent, 'utf8').catch(() => '')).trim() || null);
        if (noted === previous && hasTrailer(message, trailer) && paths.length > 0 && paths.every((p) => inFence(fence, p))) {
          // The killed harvest moved the branch but may not have reached the index: it gets the
          // committed entries now, or a plain `git commit` in the worktree would undo the work.
          await git(cwd, ['update-index', '-z', '--index-info'], indexInfo(entries, previous.length, new Set(paths)));
          return { kind: 'committed', commit: { sha: previous, message, paths }, adopted: true };
        }
      }
      return { kind: 'nothing', why: 'nothing left to commit: the in-fence changes are already committed on the branch' };
    }
    const paths = (
      await git(cwd, ['-c', 'core.quotepath=off', 'diff-tree', '-r', '--name-only', '--no-renames', '-z', headTree ?? (await emptyTree(cwd)), tree])
    ).split('\0').filter(Boolean).sort();
    const signedOff = signoff ? `\nSigned-off-by: ${(await git(cwd, ['var', 'GIT_COMMITTER_IDENT'])).trim().replace(/ \d+ [+-]\d{4}$/, '')}` : '';
    const message = `${commitMessage(record, type).trimEnd()}${signedOff}\n`;
    // Hooks are off (GIT_OPTIONS) and so is signing, unless the trusted config signs: then with
    // its program, pinned (`signing`), and -S since commit-tree does not read commit.gpgSign.
    const sha = (await git(cwd, [...signing, 'commit-tree', ...(signing.length > 0 ? ['-S'] : []), ...(previous ? ['-p', previous] : []), '-F', '-', tree], message)).trim();
    // Noted before the branch moves: a harvest killed right after is adopted by the next, by this sha alone.
    if (intent !== null) await writeFile(intent, `${sha}\n`, { mode: 0o600 });
    // From the commit it was built on only: a branch moved meanwhile is not overwritten.
    await git(cwd, ['update-ref', '-m', `waves harvest: ${record.id}`, 'HEAD', sha, previous ?? '0'.repeat(sha.length)]);
    // The commit must hold exactly what was meant, as git says: else the branch goes back.
    const check = await checkCommit(cwd, sha, paths);
    if (!check.ok) {
      await git(cwd, previous === null ? ['update-ref', '-d', 'HEAD', sha] : ['update-ref', 'HEAD', previous, sha]);
      const what = [check.extra.length > 0 ? `held ${list(check.extra)} too` : '', check.missing.length > 0 ? `lacked ${list(check.missing)}` : ''].filter(Boolean).join(' and ');
      return { kind: 'refused', why: `the commit waves made (${sha.slice(0, 10)}) ${what}: the branch is back at ${previous ? previous.slice(0, 10) : 'no commit'}, a person must look` };
    }
    // The work tree's index gets the committed entries, so that nothing shows as staged against the new commit.
    await git(cwd, ['update-index', '-z', '--index-info'], indexInfo(entries, sha.length, new Set(paths)));
    return { kind: 'committed', commit: { sha, message: message.trim(), paths } };
  } catch (error) {
    if (error instanceof GitError || (error instanceof Error && error.message.startsWith('git '))) return { kind: 'refused', why: error.message.split('\n')[0]! };
    throw error;
  }
}

/** The empty tree of this repository's hash algorithm: what a first commit is compared with. */
async function emptyTree(cwd: string): Promise<string> {
  return (await git(cwd, ['hash-object', '-t', 'tree', '--stdin'], '')).trim();
}
