/**
 * Whether an issue's worktree, left by an earlier run, may be continued by a new one (red team
 * J1, J2). Its agent starts on whatever the folder holds, uncommitted and untracked files included
 * (an `AGENTS.md`), and an agent of another run can write there (`../issue-102/AGENTS.md`) or make
 * the folder itself (`git worktree add … ../issue-113`). The branch rule (base-during-runs.ts)
 * sees commits, not files: so while runs not yet harvested exist, a worktree is continued only
 * when waves made it (a sealed run of the issue names it) and it holds nothing uncommitted — what
 * is there could have been written by any of those runs' agents — and within a dispatch, only
 * while it holds what it held when the dispatch started (an agent of this wave, started earlier,
 * could write in it meanwhile). With every run harvested, what a worktree holds is the person's
 * to judge, as before.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execaGit } from '@waves/planner';
import { GIT_OPTIONS } from '../harvest/git-changes.js';
import { readSeals } from './run-record.js';
import { worktreeProblem } from './worktree-check.js';

/** What a worktree holds, as one id: the tree of its HEAD with every change and untracked file added (git's ignored files aside); null when there is no worktree of ours there. */
export async function worktreeStateId(root: string, dir: string, branch: string): Promise<string | null> {
  if (!existsSync(dir) || (await worktreeProblem(root, dir, branch)) !== null) return null;
  const scratch = await mkdtemp(path.join(tmpdir(), 'waves-state-id-'));
  try {
    const env = { ...process.env, GIT_INDEX_FILE: path.join(scratch, 'index') };
    const git = (args: string[]) => execaGit([...GIT_OPTIONS, ...args], { cwd: dir, reject: false, stdin: 'ignore', env });
    if ((await git(['read-tree', 'HEAD'])).exitCode !== 0) return null;
    if ((await git(['add', '-A', '--', '.'])).exitCode !== 0) return null;
    const tree = await git(['write-tree']);
    return tree.exitCode === 0 ? tree.stdout.trim() : null;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Why the worktree at `worktreePath` (relative to the root) is not to be continued now, or null
 * (none there, or nothing unharvested ran, or it is waves' and clean).
 */
export async function worktreeReuseProblem(root: string, runsDir: string, worktreePath: string, branch: string): Promise<string | null> {
  const dir = path.join(root, worktreePath);
  if (!existsSync(dir)) return null;
  const seals = [...(await readSeals(runsDir)).values()];
  const open = [...new Set(seals.filter((r) => r.witness === undefined && r.start !== undefined).map((r) => r.issue.number))].sort((a, b) => a - b);
  if (open.length === 0) return null;
  const runs = `run(s) ${open.slice(0, 5).map((n) => `#${n}`).join(', ')}${open.length > 5 ? ` and ${open.length - 5} more` : ''}`;
  const after = `Harvest those runs first (waves harvest), then dispatch again`;
  // A run's record holds its worktree's absolute path.
  if (!seals.some((r) => r.worktree !== null && path.resolve(root, r.worktree.path) === path.resolve(dir))) return `its worktree ${worktreePath} was not made by waves, and ${runs} not yet harvested ran since (an agent can make one): its agent would start in it. ${after}`;
  if ((await worktreeProblem(root, dir, branch)) !== null) return null; // not continued anyway: run-wave says why
  const head = await execaGit([...GIT_OPTIONS, 'rev-parse', 'HEAD^{tree}'], { cwd: dir, reject: false, stdin: 'ignore' });
  const now = await worktreeStateId(root, dir, branch);
  if (head.exitCode !== 0 || now === null || now !== head.stdout.trim()) {
    return `its worktree ${worktreePath} holds uncommitted changes, and ${runs} not yet harvested ran meanwhile: any of their agents could have written them, and its agent would start on them. ${after} (or commit or remove what is there)`;
  }
  return null;
}
