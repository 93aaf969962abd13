/**
 * The refs a run could move under the person: taken when the run starts (into its sealed record)
 * and compared at harvest. An agent in a worktree shares the repository's refs: it can put a
 * commit on `main` (`git update-ref refs/heads/main HEAD`), move a tag, add a replace ref, or
 * switch the shared work tree to a branch of its own — none of which shows in its diff.
 *
 * What is watched: HEAD of the root work tree and of the run's worktree (the branch it is on, and
 * its commit), and every ref under refs/heads, refs/tags, refs/replace and refs/notes but waves'
 * own run branches (`refs/heads/waves/`: each run commits on its own), which are kept apart and
 * judged by `wavesRefChanges`: a run may move its own branch, and another run's only while that
 * run was alive too (its harvest witnesses its branch) or by waves' own harvest commits; any other
 * move, and any deletion, of another run's branch needs a person. Not refs/remotes (a fetch
 * moves them, and the next fetch rewrites them) nor refs/stash (a person's stash while agents run).
 *
 * NOTE: a person who commits on main in the root while agents run moves a watched ref too: the
 * harvest cannot tell who did it, so it asks. Waves' own harvest commits (on the shared work
 * tree's branch, without worktrees) are recognised by their sealed records and are not a change.
 */
import { execaGit } from '@waves/planner';
import { git, GIT_OPTIONS, headCommit } from './git-changes.js';

export interface HeadState {
  /** The full name of the branch HEAD is on (`refs/heads/main`), or null when detached. */
  branch: string | null;
  commit: string | null;
}

export interface RefSnapshot {
  root: HeadState;
  /** The run's worktree, or null when it ran in the root work tree. */
  worktree: HeadState | null;
  /** Each watched ref and the object it names. */
  refs: Record<string, string>;
  /** waves' run branches (`refs/heads/waves/…`) and their commits; absent in records of an older waves. */
  waves?: Record<string, string>;
}

export const WATCHED_REFS = ['refs/heads', 'refs/tags', 'refs/replace', 'refs/notes'] as const;
const OWN = /^refs\/heads\/waves\//;

async function headOf(dir: string): Promise<HeadState> {
  const branch = await execaGit([...GIT_OPTIONS, 'symbolic-ref', '--quiet', 'HEAD'], { cwd: dir, reject: false, stdin: 'ignore' });
  return { branch: branch.exitCode === 0 ? branch.stdout.trim() : null, commit: await headCommit(dir) };
}

/** The refs as they are now. */
export async function readRefs(root: string, worktree: string | null): Promise<RefSnapshot> {
  const refs: Record<string, string> = {};
  const waves: Record<string, string> = {};
  for (const line of (await git(root, ['for-each-ref', '--format=%(refname) %(objectname)', ...WATCHED_REFS])).split('\n')) {
    const space = line.lastIndexOf(' ');
    if (space <= 0) continue;
    const name = line.slice(0, space);
    (OWN.test(name) ? waves : refs)[name] = line.slice(space + 1);
  }
  return { root: await headOf(root), worktree: worktree === null ? null : await headOf(worktree), refs, waves };
}

export interface RefChange {
  /** A ref name, or which HEAD. */
  what: string;
  from: string | null;
  to: string | null;
  /** For a HEAD: the branch it was on and is on now, when they differ. */
  branch?: { from: string | null; to: string | null };
}

/**
 * What moved between two snapshots. `wavesAdvance(from, to)` says whether a move of the shared
 * work tree's branch (or of its detached HEAD) is waves' own harvest commits only; other refs
 * may not move at all, and the run's worktree may commit but not change branch.
 */
export async function refChanges(before: RefSnapshot, after: RefSnapshot, wavesAdvance: (from: string, to: string) => Promise<boolean>): Promise<RefChange[]> {
  const out: RefChange[] = [];
  // The branch waves commits on without worktrees: the one the root was on, when the run was there.
  const sharedBranch = before.worktree === null ? before.root.branch : null;
  const mayMove = async (from: string | null, to: string | null) => from !== null && to !== null && (await wavesAdvance(from, to));
  for (const name of [...new Set([...Object.keys(before.refs), ...Object.keys(after.refs)])].sort()) {
    const from = before.refs[name] ?? null;
    const to = after.refs[name] ?? null;
    if (from === to) continue;
    if (name === sharedBranch && (await mayMove(from, to))) continue;
    out.push({ what: name, from, to });
  }
  const head = async (what: string, was: HeadState, now: HeadState, shared: boolean) => {
    if (was.branch !== now.branch) out.push({ what, from: was.commit, to: now.commit, branch: { from: was.branch, to: now.branch } });
    // On a branch, its moves are the ref's (above); detached, HEAD itself is the ref.
    else if (was.branch === null && was.commit !== now.commit && !(shared && (await mayMove(was.commit, now.commit)))) out.push({ what, from: was.commit, to: now.commit });
  };
  await head(before.worktree === null ? "the work tree's HEAD" : "the root work tree's HEAD", before.root, after.root, before.worktree === null);
  // The run's own worktree may commit on its branch, not leave it.
  if (before.worktree !== null && after.worktree !== null && before.worktree.branch !== after.worktree.branch) {
    out.push({ what: "its worktree's HEAD", from: before.worktree.commit, to: after.worktree.commit, branch: { from: before.worktree.branch, to: after.worktree.branch } });
  }
  return out;
}

const short = (sha: string | null) => (sha === null ? 'nothing' : sha.slice(0, 12));

/** One line for the reason. */
export function describeRefChanges(changes: readonly RefChange[]): string {
  const one = (c: RefChange): string => {
    if (c.branch) return `${c.what} is ${c.branch.to === null ? `detached at ${short(c.to)}` : `on ${c.branch.to}`}, not ${c.branch.from ?? `detached at ${short(c.from)}`}`;
    if (c.from === null) return `${c.what} created at ${short(c.to)}`;
    if (c.to === null) return `${c.what} deleted (was ${short(c.from)})`;
    return `${c.what} moved ${short(c.from)} → ${short(c.to)}`;
  };
  const shown = changes.slice(0, 6).map(one).join('; ');
  return (
    `refs changed during the run (by the agent, or by you while it ran): ${shown}${changes.length > 6 ? ` and ${changes.length - 6} more` : ''}; ` +
    'waves put none back and commits nothing (restore them with git update-ref or git switch if the agent moved them)'
  );
}

/**
 * Whether `to` is `from` plus commits waves made itself only (their ids, from the sealed
 * records' witnesses): one after the other on the first-parent line, nothing else.
 */
export function wavesCommitsOnly(cwd: string, known: () => Promise<ReadonlySet<string>>): (from: string, to: string) => Promise<boolean> {
  return async (from, to) => {
    const ancestor = await execaGit([...GIT_OPTIONS, 'merge-base', '--is-ancestor', from, to], { cwd, reject: false, stdin: 'ignore' });
    if (ancestor.exitCode !== 0) return false;
    const added = (await git(cwd, ['rev-list', '--first-parent', `${from}..${to}`])).split('\n').filter(Boolean);
    const ours = await known();
    return added.length > 0 && added.every((sha) => ours.has(sha));
  };
}

/**
 * The moves of waves' run branches between two snapshots that the run cannot account for: its own
 * branch (`own`) may move; another's may move when `excused(ref, from, to)` says so (its owner ran
 * at the same time, or the move is waves' own commits); a deletion is never excused.
 */
export async function wavesRefChanges(
  before: RefSnapshot,
  after: RefSnapshot,
  own: string | null,
  excused: (ref: string, from: string | null, to: string) => Promise<boolean>,
): Promise<RefChange[]> {
  if (!before.waves || !after.waves) return [];
  const out: RefChange[] = [];
  for (const name of [...new Set([...Object.keys(before.waves), ...Object.keys(after.waves)])].sort()) {
    const from = before.waves[name] ?? null;
    const to = after.waves[name] ?? null;
    if (from === to || (own !== null && name === `refs/heads/${own}`)) continue;
    if (to !== null && (await excused(name, from, to))) continue;
    out.push({ what: name, from, to });
  }
  return out;
}

/** One line for the reason: another run's branch moved or deleted while this run ran. */
export function describeWavesRefChanges(changes: readonly RefChange[]): string {
  const one = (c: RefChange) =>
    c.to === null ? `${c.what} deleted (was ${short(c.from)})` : c.from === null ? `${c.what} created at ${short(c.to)}` : `${c.what} moved ${short(c.from)} → ${short(c.to)}`;
  return (
    `another run's branch changed during this run and no run alive then owns it: ${changes.slice(0, 6).map(one).join('; ')}${changes.length > 6 ? ` and ${changes.length - 6} more` : ''}; ` +
    'this run (or you, meanwhile) rewrote a branch waves had already harvested: waves commits nothing for this run (check that branch; git update-ref puts it back)'
  );
}

/**
 * Where a run that continues an issue's branch (`waves/issue-N`, left by an earlier run or found
 * there) is audited from: walking the branch's own commits (those the dispatch base does not hold,
 * newest first), the newest one waves made and sealed — everything up to it was witnessed — else
 * the commit the branch forked from the base. What lies after it (an earlier agent's commits, a
 * commit another agent planted on the branch) is audited with this run, as if this run had made
 * it. Null when the branch shares no history with the base (nothing to audit it against).
 */
export async function auditedStart(cwd: string, tip: string, base: string, known: () => Promise<ReadonlySet<string>>): Promise<{ commit: string; unaudited: number } | null> {
  const own = (await git(cwd, ['rev-list', '--first-parent', tip, '--not', base])).split('\n').filter(Boolean);
  if (own.length === 0) return { commit: tip, unaudited: 0 };
  const ours = await known();
  const sealed = own.findIndex((sha) => ours.has(sha));
  if (sealed >= 0) return { commit: own[sealed]!, unaudited: sealed };
  const fork = await execaGit([...GIT_OPTIONS, 'merge-base', tip, base], { cwd, reject: false, stdin: 'ignore' });
  if (fork.exitCode !== 0 || fork.stdout.trim() === '') return null;
  return { commit: fork.stdout.trim(), unaudited: own.length };
}
