/**
 * Whether the commit new runs would start from was written while runs of this repository ran (red
 * team E15, G3): an agent of wave 1, in a worktree, can put a commit of its own on `main`
 * (`git update-ref`), point the root's HEAD at a branch of its own or detach it there, and
 * `dispatch --wave 2` before wave 1's harvest would fork every new worktree from it — the runs of
 * wave 2 then audited from a base the agent wrote. The rule, whatever names the base (HEAD, a
 * branch, a tag, a remote-tracking ref, a sha): every commit it reaches was reachable, when each run
 * not yet harvested started, from a ref its sealed snapshot watched (branches but waves' own,
 * tags, the root's HEAD), or is one of waves' own harvest commits. Otherwise dispatch refuses until
 * those runs are harvested (their harvest says who moved what): the person decides, then
 * dispatches.
 */
import { execaGit } from '@waves/planner';
import { GIT_OPTIONS } from '../harvest/git-changes.js';
import { readSeals, type RunRecord } from './run-record.js';

/** At most this many new commits are looked at (a base that far ahead is refused all the same). */
const MAX_NEW = 1_000;

/**
 * A one-line reason to refuse dispatching from `base` (a rev, default HEAD; `commit`, when given,
 * what it was resolved to), or null. What counts as known is what the refs held when the first run
 * of each dispatch started — the snapshot taken before any of its agents ran: a later run's would
 * hold what an earlier agent of the same dispatch wrote (red team H1).
 */
export async function baseMovedDuringRuns(root: string, runsDir: string, base: string | null, commit: string | null = null): Promise<string | null> {
  const seals = [...(await readSeals(runsDir)).values()];
  const open = seals.filter((r) => r.witness === undefined && r.start?.refs !== undefined);
  if (open.length === 0) return null;
  const firsts = new Map<string, RunRecord>();
  for (const run of seals) {
    if (run.start?.refs === undefined) continue;
    const key = run.dispatchId ?? run.id;
    const first = firsts.get(key);
    if (first === undefined || Date.parse(run.startedAt) < Date.parse(first.startedAt)) firsts.set(key, run);
  }
  const known = new Set<string>();
  for (const run of open) {
    const first = firsts.get(run.dispatchId ?? run.id) ?? run;
    const refs = first.start!.refs!;
    for (const sha of Object.values(refs.refs)) known.add(sha);
    if (refs.root.commit !== null) known.add(refs.root.commit);
  }
  const ours = new Set(seals.flatMap((r) => (r.witness?.commit ? [r.witness.commit.sha] : [])));
  const rev = commit ?? base ?? 'HEAD';
  const tip = await execaGit([...GIT_OPTIONS, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { cwd: root, reject: false, stdin: 'ignore' });
  if (tip.exitCode !== 0) return null; // resolved (and refused) elsewhere
  // What the base reaches that none of those refs reached: --stdin, so no ref name is an argument.
  const fresh = await execaGit([...GIT_OPTIONS, 'rev-list', `--max-count=${MAX_NEW}`, '--stdin'], {
    cwd: root,
    reject: false,
    input: [tip.stdout.trim(), ...[...known].filter((sha) => /^[0-9a-f]{40,64}$/.test(sha)).map((sha) => `^${sha}`)].join('\n') + '\n',
  });
  if (fresh.exitCode !== 0) return null;
  const foreign = fresh.stdout.split('\n').filter(Boolean).filter((sha) => !ours.has(sha));
  if (foreign.length === 0) return null;
  const runs = [...new Set(open.map((r: RunRecord) => r.issue.number))].sort((a, b) => a - b);
  return (
    `${base === null ? 'HEAD' : `--base ${base}`} is at ${tip.stdout.trim().slice(0, 12)}, which holds ${foreign.length >= MAX_NEW ? `${MAX_NEW} or more commits` : `${foreign.length} commit(s)`} (${foreign[0]!.slice(0, 12)}${foreign.length > 1 ? ', …' : ''}) no branch or tag held when run(s) ${runs.slice(0, 5).map((n) => `#${n}`).join(', ')}${runs.length > 5 ? ` and ${runs.length - 5} more` : ''} started, and that waves did not make ` +
    `(an agent can write them as well as you): the new runs would start from them. Harvest those runs first (waves harvest), which says who moved what, then dispatch again`
  );
}
