import type { BacklogIssue } from '../types.js';
import { priorityRank } from './priority.js';

function compareNullable(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a - b;
}

function createdAtMs(issue: BacklogIssue): number | null {
  if (issue.createdAt === null) return null;
  const ms = Date.parse(issue.createdAt);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The backlog order: priority label, then explicit `sortOrder`, then `createdAt` ascending, then
 * number. A total order (numbers are unique), so the result never depends on input order.
 */
export function rankIssues(issues: readonly BacklogIssue[], customPriorities: Readonly<Record<string, number>> = {}): BacklogIssue[] {
  const keyed = issues.map((issue) => ({
    issue,
    rank: priorityRank(issue.labels, customPriorities),
    created: createdAtMs(issue),
  }));
  keyed.sort(
    (x, y) =>
      (x.rank === y.rank ? 0 : x.rank < y.rank ? -1 : 1) ||
      compareNullable(x.issue.sortOrder, y.issue.sortOrder) ||
      compareNullable(x.created, y.created) ||
      x.issue.number - y.issue.number,
  );
  return keyed.map((k) => k.issue);
}

/** Open issues only, ranked, the first `top`. */
export function selectIssues(
  issues: readonly BacklogIssue[],
  top: number,
  customPriorities: Readonly<Record<string, number>> = {},
): BacklogIssue[] {
  return rankIssues(
    issues.filter((issue) => issue.state === 'open'),
    customPriorities,
  ).slice(0, top);
}
