/**
 * Whether the commit new runs would start from moved while runs of this repository ran (red team
 * E15): an agent of wave 1, in a worktree, can put a commit of its own on `main`
 * (`git update-ref`), and `dispatch --wave 2` before wave 1's harvest would fork every new
 * worktree from it — the runs of wave 2 are then audited from a base the agent wrote. The rule:
 * for each run not yet harvested, the base's ref (the root's branch, and the ref `--base` names)
 * and a detached HEAD are as that run's sealed snapshot had them, or moved by waves' own harvest
 * commits only. Otherwise dispatch refuses until those runs are harvested (their harvest says who
 * moved what): the person decides, then dispatches.
 */
import { readRefs, wavesCommitsOnly, type RefSnapshot } from '../harvest/ref-snapshot.js';
import { readSeals, type RunRecord } from './run-record.js';

/** A one-line reason to refuse dispatching from the root's HEAD (or `base`, a ref name), or null. */
export async function baseMovedDuringRuns(root: string, runsDir: string, base: string | null): Promise<string | null> {
  const seals = [...(await readSeals(runsDir)).values()];
  const open = seals.filter((r): r is RunRecord & { start: { refs: RefSnapshot } } => r.witness === undefined && r.start?.refs !== undefined);
  if (open.length === 0) return null;
  const now = await readRefs(root, null);
  const ownCommits = async () => new Set(seals.flatMap((r) => (r.witness?.commit ? [r.witness.commit.sha] : [])));
  const advance = wavesCommitsOnly(root, ownCommits);
  const names = new Set<string>();
  if (now.root.branch !== null) names.add(now.root.branch);
  if (base !== null) for (const name of [base, `refs/heads/${base}`, `refs/tags/${base}`]) if (name in now.refs) names.add(name);
  const moved: { run: RunRecord; what: string; from: string | null; to: string | null }[] = [];
  for (const run of open) {
    const was = run.start.refs;
    for (const name of names) {
      const from = was.refs[name] ?? null;
      const to = now.refs[name] ?? null;
      if (from === to || from === null) continue;
      if (to !== null && (await advance(from, to))) continue;
      moved.push({ run, what: name, from, to });
    }
    if (now.root.branch === null && was.root.branch === null && was.root.commit !== now.root.commit && was.root.commit !== null && now.root.commit !== null && !(await advance(was.root.commit, now.root.commit))) {
      moved.push({ run, what: 'the detached HEAD', from: was.root.commit, to: now.root.commit });
    }
  }
  if (moved.length === 0) return null;
  const first = moved[0]!;
  const runs = [...new Set(moved.map((m) => m.run.issue.number))].sort((a, b) => a - b);
  const short = (sha: string | null) => (sha === null ? 'nothing' : sha.slice(0, 12));
  return (
    `${first.what} moved ${short(first.from)} → ${short(first.to)} since run(s) ${runs.slice(0, 5).map((n) => `#${n}`).join(', ')}${runs.length > 5 ? ` and ${runs.length - 5} more` : ''} started, by commits waves did not make ` +
    `(an agent can move it as well as you): the new runs would start from it. Harvest those runs first (waves harvest), which says who moved what, then dispatch again`
  );
}
