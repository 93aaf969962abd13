/**
 * A committed run's branch still holds what waves committed and sealed: another run's agent
 * shares the repository's refs and can rewrite an already-harvested branch
 * (`git update-ref refs/heads/waves/issue-101 <evil>`) or delete it or its worktree; the branch
 * the person merges would then carry what no harvest saw. Checked at every harvest and status,
 * from the sealed witness: the branch must be at the sealed commit — or at what a later run of the
 * same issue, started from that commit, made of it (that run's harvest witnesses it) — and its
 * worktree still this repository's.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { execaGit } from '@waves/planner';
import type { RunRecord } from '../runs/run-record.js';
import { worktreeProblem } from '../runs/worktree-check.js';
import { GIT_OPTIONS } from './git-changes.js';

const short = (sha: string) => sha.slice(0, 10);

/**
 * Null when the committed run's branch and worktree are as sealed; else why, naming the branch,
 * the sealed and the found commit. `others` are the other sealed records (later runs of the issue).
 */
export async function committedBranchProblem(root: string, record: RunRecord, others: Iterable<RunRecord>): Promise<string | null> {
  const sha = record.witness?.commit?.sha;
  if (!sha || !record.worktree) return null;
  const { branch } = record.worktree;
  const found = await execaGit([...GIT_OPTIONS, 'rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${branch}`], { cwd: root, reject: false, stdin: 'ignore' });
  const tip = found.exitCode === 0 ? found.stdout.trim() : null;
  if (tip === null) return `its branch ${branch} is gone (waves committed and sealed ${short(sha)} on it): deleted by another run's agent, or by you after merging it`;
  if (tip !== sha) {
    // A later run of the same issue continued from the sealed commit: the move is that run's to witness.
    const continued = [...others].some(
      (r) => r.id !== record.id && r.worktree?.branch === branch && Date.parse(r.startedAt) > Date.parse(record.startedAt) && r.start?.head === sha,
    );
    if (!continued) {
      return `its branch ${branch} is at ${short(tip)}, not at ${short(sha)} that waves committed and sealed: something moved it after the harvest (another run's agent?); what ${short(sha)}..${short(tip)} holds was never witnessed — do not merge it unseen`;
    }
  }
  const where = path.relative(root, record.worktree.path) || '.';
  if ((await lstat(record.worktree.path).catch(() => null)) === null) return `its worktree ${where} is gone (its branch ${branch} is as committed): removed by another run's agent, or by you`;
  const problem = await worktreeProblem(root, record.worktree.path, null);
  return problem === null ? null : `its worktree changed after the harvest: ${problem}`;
}
