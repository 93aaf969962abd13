/**
 * Whether an issue's worktree, left by an earlier run, may be continued by a new one (red team
 * J1, J2). Its agent starts on whatever the folder holds, uncommitted and untracked files included
 * (an `AGENTS.md`), and an agent of another run can write there (`../issue-102/AGENTS.md`) or make
 * the folder itself (`git worktree add … ../issue-113`). The branch rule (base-during-runs.ts)
 * sees commits, not files: so while runs not yet harvested exist, a worktree is continued only
 * when waves made it (a sealed run of the issue names it) and it holds nothing uncommitted — what
 * is there could have been written by any of those runs' agents — and within a dispatch, only
 * while it holds what it held when the dispatch started (an agent of this wave, started earlier,
 * could write in it meanwhile), and its supervisor checks once more, after the setup, just before
 * the agent starts (supervise.ts: no control file written meanwhile). With every run harvested,
 * what a worktree holds is the person's to judge, as before.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isControlFile } from '@waves/planner';
import { changesSince, dirtySnapshot, hashFiles, headCommit, type DirtyFile } from '../harvest/git-changes.js';
import { runSeals, type RunsSource } from './base-during-runs.js';
import { worktreeProblem } from './worktree-check.js';

/**
 * What a worktree holds beyond its HEAD commit: each changed or untracked file with its content's
 * id, as harvest sees them (git-changes.ts) — untracked files hidden only by the `.gitignore`
 * files of HEAD, never by one an agent wrote (`*` in a new `.gitignore` that ignores itself), nor
 * by `.git/info/exclude` or your `core.excludesFile` (red team K1, K2); contents hashed without
 * filters. Null when there is no worktree of ours there.
 */
export async function worktreeFiles(root: string, dir: string, branch: string): Promise<DirtyFile[] | null> {
  if (!existsSync(dir) || (await worktreeProblem(root, dir, branch)) !== null) return null;
  return dirtySnapshot(dir).catch(() => null);
}

/** What `worktreeFiles` found, as one comparable value. */
export function stateIdOf(files: readonly DirtyFile[] | null): string | null {
  return files === null ? null : JSON.stringify([...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
}

/** `worktreeFiles` as one comparable value. */
export async function worktreeStateId(root: string, dir: string, branch: string): Promise<string | null> {
  return stateIdOf(await worktreeFiles(root, dir, branch));
}

/**
 * Why the worktree at `worktreePath` (relative to the root) is not to be continued now, or null
 * (none there, or nothing unharvested ran, or it is waves' and clean).
 */
export async function worktreeReuseProblem(root: string, from: RunsSource, worktreePath: string, branch: string): Promise<string | null> {
  const dir = path.join(root, worktreePath);
  if (!existsSync(dir)) return null;
  const seals = await runSeals(from);
  const open = [...new Set(seals.filter((r) => r.witness === undefined && r.start !== undefined).map((r) => r.issue.number))].sort((a, b) => a - b);
  if (open.length === 0) return null;
  const runs = `run(s) ${open.slice(0, 5).map((n) => `#${n}`).join(', ')}${open.length > 5 ? ` and ${open.length - 5} more` : ''}`;
  const after = `Harvest those runs first (waves harvest), then dispatch again`;
  // A run's record holds its worktree's absolute path.
  if (!seals.some((r) => r.worktree !== null && path.resolve(root, r.worktree.path) === path.resolve(dir))) return `its worktree ${worktreePath} was not made by waves, and ${runs} not yet harvested ran since (an agent can make one): its agent would start in it. ${after}`;
  if ((await worktreeProblem(root, dir, branch)) !== null) return null; // not continued anyway: run-wave says why
  const files = await worktreeFiles(root, dir, branch);
  if (files === null || files.length > 0) {
    return `its worktree ${worktreePath} holds uncommitted changes, and ${runs} not yet harvested ran meanwhile: any of their agents could have written them, and its agent would start on them. ${after} (or commit or remove what is there)`;
  }
  return null;
}

/**
 * Why the agent of a worktree run must not start, or null: between the run's start (`tree`, taken
 * before its setup) and now, the worktree's HEAD moved, or a control file in it was added or
 * changed — an instruction file or agent setting its agent would load (`AGENTS.md`,
 * `.claude/settings.json`), a manifest… — which neither the run's agent (not started yet) nor,
 * with a frozen install, its setup writes: another agent did (red team K3, K4). Other files are
 * the setup's to write.
 */
export async function plantedBeforeAgent(cwd: string, tree: { head: string | null; files: readonly DirtyFile[] }, own: readonly string[] = []): Promise<string | null> {
  const head = await headCommit(cwd).catch(() => null);
  if (head !== tree.head) return `its worktree's HEAD moved (${tree.head?.slice(0, 12) ?? 'none'} → ${head?.slice(0, 12) ?? 'none'}) after the run started and before its agent did (another agent?): not started`;
  const before = new Map(tree.files.map((f) => [f.path, f.hash]));
  // Only control files are read (a setup's install may leave thousands of files where no
  // .gitignore hides them, none of them the agent's instructions: node_modules is left out).
  const changed = await changesSince(cwd, head).catch(() => null);
  if (changed === null) return `its worktree could not be read before its agent started: not started`;
  // `own`: what waves itself wrote there for this run (the live fence's hook files).
  const candidates = [...new Set(changed.map((c) => c.path))].filter((p) => isControlFile(p) && !p.split('/').includes('node_modules') && !own.includes(p));
  const now = await hashFiles(cwd, candidates);
  const planted = now.filter((f) => f.hash !== null && before.get(f.path) !== f.hash).map((f) => f.path);
  if (planted.length === 0) return null;
  return `${planted.slice(0, 5).join(', ')}${planted.length > 5 ? ` and ${planted.length - 5} more` : ''} appeared or changed in its worktree after the run started and before its agent did (another agent of this wave?): control files its agent or its tools would obey; not started`;
}
