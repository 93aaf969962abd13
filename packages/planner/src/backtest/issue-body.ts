/**
 * What a replayed commit tells the planner, by grade — how a team measures what writing better
 * issues is worth:
 * - `files`: every file, marked edit, create or delete, in a `## Files` list as people write it;
 * - `dirs`: only the directories the files lie in (`./` for files at the root);
 * - `title`: nothing beyond the subject.
 * The planner then reads the issue as it reads any other (see the README, "How waves reads an issue").
 */
import type { BacklogIssue } from '../types.js';
import type { ChangedFile, CommitIssue } from './backlog-from-commits.js';

export const BACKTEST_GRADES = ['files', 'dirs', 'title'] as const;
export type BacktestGrade = (typeof BACKTEST_GRADES)[number];

function parentDir(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

export function writeIssueBody(files: readonly ChangedFile[], grade: BacktestGrade): string {
  if (grade === 'title' || files.length === 0) return '';
  const lines =
    grade === 'files'
      ? files.map((f) => `- \`${f.path}\` (${f.change})`)
      : [...new Set(files.map((f) => parentDir(f.path)))].sort().map((dir) => `- \`${dir === '' ? './' : `${dir}/`}\``);
  return ['## Files', '', ...lines, ''].join('\n');
}

/** The issue the planner sees: open, ranked by its place in history (oldest first), no labels. */
export function toBacklogIssue(issue: CommitIssue, grade: BacktestGrade): BacklogIssue {
  return {
    number: issue.number,
    title: issue.title,
    body: writeIssueBody(issue.files, grade),
    labels: [],
    state: 'open',
    createdAt: null,
    url: null,
    sortOrder: issue.rank,
  };
}
