/**
 * Whether the commit new runs would start from was written while runs of this repository ran (red
 * team E15, G3): an agent of wave 1, in a worktree, can put a commit of its own on `main`
 * (`git update-ref`), point the root's HEAD at a branch of its own or detach it there, and
 * `dispatch --wave 2` before wave 1's harvest would fork every new worktree from it — the runs of
 * wave 2 then audited from a base the agent wrote. The rule, whatever names the base (HEAD, a
 * branch, a tag, a remote-tracking ref, a sha): every commit it reaches was reachable, when each run
 * not yet harvested started, from a ref its sealed snapshot watched (branches but waves' own,
 * tags, the root's HEAD, waves' run branches), or is one of waves' own harvest commits. The same
 * holds for a run branch (`waves/issue-N`) a new run would continue (red team I3: an agent of wave 1
 * created wave 2's branch, holding an AGENTS.md for the agent that would start on it). Otherwise dispatch refuses until
 * those runs are harvested (their harvest says who moved what): the person decides, then
 * dispatches.
 */
import { execaGit } from '@waves/planner';
import { GIT_OPTIONS } from '../harvest/git-changes.js';
import { readSeals, type RunRecord } from './run-record.js';

/** At most this many new commits are looked at (a base that far ahead is refused all the same). */
const MAX_NEW = 1_000;

/** A runs folder, or its sealed records read once for several checks (`runSeals`). */
export type RunsSource = string | readonly RunRecord[];

/** The sealed records of a runs folder (see readSeals), as one list. */
export async function runSeals(runs: RunsSource): Promise<readonly RunRecord[]> {
  return typeof runs === 'string' ? [...(await readSeals(runs)).values()] : runs;
}

/**
 * A one-line reason to refuse dispatching from `base` (a rev, default HEAD; `commit`, when given,
 * what it was resolved to), or null. What counts as known is what the refs held when the first run
 * of each dispatch started — the snapshot taken before any of its agents ran: a later run's would
 * hold what an earlier agent of the same dispatch wrote (red team H1) — and the base must pass
 * every dispatch with runs not yet harvested on its own: a later dispatch's snapshot holds what an
 * agent of an earlier one wrote (red team I1).
 */
export async function baseMovedDuringRuns(root: string, from: RunsSource, base: string | null, commit: string | null = null, what = base === null ? 'HEAD' : `--base ${base}`): Promise<string | null> {
  const snapshots = openSnapshots(await runSeals(from));
  if (snapshots === null) return null;
  if ('problem' in snapshots) return `cannot tell which commits ${what} holds that were written while runs not yet harvested ran: ${snapshots.problem}. Harvest those runs first (waves harvest), then dispatch again`;
  const { groups, ours } = snapshots;
  const rev = commit ?? base ?? 'HEAD';
  const tip = await execaGit([...GIT_OPTIONS, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { cwd: root, reject: false, stdin: 'ignore' });
  if (tip.exitCode !== 0) return null; // resolved (and refused) elsewhere
  // Each dispatch with runs not yet harvested on its own: the base may reach only what *its*
  // snapshot knew. Pooled, a later dispatch's snapshot (taken after an agent of an earlier one
  // wrote main) would vouch for the agent's commit (red team I1).
  let foreign: string[] = [];
  let runs: number[] = [];
  for (const { refs, group } of groups) {
    const known = new Set([...Object.values(refs.refs), ...Object.values(refs.waves ?? {}), ...(refs.root.commit !== null ? [refs.root.commit] : [])]);
    // What the base reaches that none of those refs reached: --stdin, so no ref name is an argument.
    // --ignore-missing: a known commit whose object is gone (pruned, or deleted by an agent that
    // can write the shared object store) excludes nothing, so the base's commits count as new.
    const fresh = await execaGit([...GIT_OPTIONS, 'rev-list', `--max-count=${MAX_NEW}`, '--ignore-missing', '--stdin'], {
      cwd: root,
      reject: false,
      input: [tip.stdout.trim(), ...[...known].filter((sha) => /^[0-9a-f]{40,64}$/.test(sha)).map((sha) => `^${sha}`)].join('\n') + '\n',
    });
    if (fresh.exitCode !== 0) {
      return `cannot tell which commits ${what} holds that were written while runs not yet harvested ran (git rev-list: ${fresh.stderr.split('\n')[0] ?? ''}). Harvest those runs first (waves harvest), then dispatch again`;
    }
    const unknown = fresh.stdout.split('\n').filter(Boolean).filter((sha) => !ours.has(sha));
    if (unknown.length > foreign.length) foreign = unknown;
    if (unknown.length > 0) runs.push(...group.map((r) => r.issue.number));
  }
  if (foreign.length === 0) return null;
  runs = [...new Set(runs)].sort((a, b) => a - b);
  return (
    `${what} is at ${tip.stdout.trim().slice(0, 12)}, which holds ${foreign.length >= MAX_NEW ? `${MAX_NEW} or more commits` : `${foreign.length} commit(s)`} (${foreign[0]!.slice(0, 12)}${foreign.length > 1 ? ', …' : ''}) no branch or tag held when run(s) ${runs.slice(0, 5).map((n) => `#${n}`).join(', ')}${runs.length > 5 ? ` and ${runs.length - 5} more` : ''} started, and that waves did not make ` +
    `(an agent can write them as well as you): the new runs would start from them. Harvest those runs first (waves harvest), which says who moved what, then dispatch again`
  );
}

type Snapshot = NonNullable<NonNullable<RunRecord['start']>['refs']>;

/**
 * The dispatches with runs not yet harvested, each with the refs its first run found (before any
 * of its agents ran), and waves' own harvest commits; null when every run is harvested. A first
 * run that recorded no snapshot (its refs could not be read) leaves nothing to judge by.
 */
function openSnapshots(seals: readonly RunRecord[]): { groups: { refs: Snapshot; group: RunRecord[] }[]; ours: Set<string> } | { problem: string } | null {
  const open = seals.filter((r) => r.witness === undefined && r.start?.refs !== undefined);
  if (open.length === 0) return null;
  const firsts = new Map<string, RunRecord>();
  for (const run of seals) {
    if (run.start?.refs === undefined) continue;
    const key = run.dispatchId ?? run.id;
    const first = firsts.get(key);
    if (first === undefined || Date.parse(run.startedAt) < Date.parse(first.startedAt)) firsts.set(key, run);
  }
  const byDispatch = new Map<string, RunRecord[]>();
  for (const run of open) {
    const key = run.dispatchId ?? run.id;
    byDispatch.set(key, [...(byDispatch.get(key) ?? []), run]);
  }
  const groups: { refs: Snapshot; group: RunRecord[] }[] = [];
  for (const [key, group] of byDispatch) {
    const first = firsts.get(key) ?? group[0]!;
    const refs = first.start?.refs;
    if (!refs) return { problem: `run ${first.id} recorded no snapshot of the refs when it started` };
    groups.push({ refs, group });
  }
  return { groups, ours: new Set(seals.flatMap((r) => (r.witness?.commit ? [r.witness.commit.sha] : []))) };
}

/**
 * The same for a run branch (`waves/issue-N`) that exists and that a new run would continue: its
 * agent starts on whatever the branch holds (an AGENTS.md included), so an agent of a run not yet
 * harvested must not have created or moved it (red team I3) — not even onto a commit known
 * before (another run's leftover, refused commit; red team J6): to each open dispatch, the branch
 * must be where its snapshot found it, or have moved only by waves' own harvest commits. A
 * symbolic ref in its place is refused. Null when the branch does not exist.
 */
export async function runBranchMovedDuringRuns(root: string, from: RunsSource, branch: string): Promise<string | null> {
  const ref = `refs/heads/${branch}`;
  const tip = await execaGit([...GIT_OPTIONS, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { cwd: root, reject: false, stdin: 'ignore' });
  if (tip.exitCode !== 0) return null;
  const symbolic = await execaGit([...GIT_OPTIONS, 'symbolic-ref', '--quiet', ref], { cwd: root, reject: false, stdin: 'ignore' });
  if (symbolic.exitCode === 0) return `its branch ${branch} is a symbolic ref (to ${symbolic.stdout.trim()}), which waves never makes: look at it, then delete it (git symbolic-ref --delete ${ref})`;
  const now = tip.stdout.trim();
  const seals = await runSeals(from);
  const snapshots = openSnapshots(seals);
  if (snapshots !== null && !('problem' in snapshots)) {
    for (const { refs, group } of snapshots.groups) {
      if (refs.waves === undefined) continue; // an older waves' record: reachability below
      const then = refs.waves[ref] ?? null;
      if (then === now) continue;
      if (then !== null && (await harvestCommitsOnly(root, then, now, snapshots.ours))) continue;
      const runs = [...new Set(group.map((r) => r.issue.number))].sort((a, b) => a - b);
      return (
        `its branch ${branch} ${then === null ? `was created (at ${now.slice(0, 12)})` : `moved ${then.slice(0, 12)} → ${now.slice(0, 12)}`} since run(s) ${runs.slice(0, 5).map((n) => `#${n}`).join(', ')}${runs.length > 5 ? ` and ${runs.length - 5} more` : ''} started, not by waves ` +
        `(an agent can move it as well as you): the new run would start on it. Harvest those runs first (waves harvest), which says who moved what, then dispatch again`
      );
    }
  }
  return baseMovedDuringRuns(root, seals, null, now, `its branch ${branch}`);
}

/** Whether `to` is `from` followed, on its first-parent line, only by waves' own harvest commits. */
async function harvestCommitsOnly(root: string, from: string, to: string, ours: ReadonlySet<string>): Promise<boolean> {
  const ancestor = await execaGit([...GIT_OPTIONS, 'merge-base', '--is-ancestor', from, to], { cwd: root, reject: false, stdin: 'ignore' });
  if (ancestor.exitCode !== 0) return false;
  const added = await execaGit([...GIT_OPTIONS, 'rev-list', '--first-parent', `${from}..${to}`], { cwd: root, reject: false, stdin: 'ignore' });
  if (added.exitCode !== 0) return false;
  const shas = added.stdout.split('\n').filter(Boolean);
  return shas.length > 0 && shas.every((sha) => ours.has(sha));
}
