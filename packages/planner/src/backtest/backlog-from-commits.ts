/**
 * The backlog a backtest replays: a repository's own first-parent history, one issue per commit
 * that a single agent could have been asked to make. Docs, markdown and tool-written files
 * (lockfiles, ESLint's bulk suppressions) are left out of every commit (they conflict with nothing
 * an agent plans around); what remains must be 1 to
 * `maxFiles` files, at least one of them code, not all of them tests. Merges are skipped: their
 * changes are the commits of the branch they bring in.
 *
 * Numbers: the `(#N)` of the subject (the last one: a squash merge's pull request), else — or
 * when an older commit of the range already took N — a number derived from the commit id, so
 * that a commit keeps its number whatever range it is replayed in. Pure.
 */
import type { IssueNumber, RepoPath } from '../types.js';
import { cutText, MAX_TITLE_CHARS } from '../schema/issues-schema.js';

export type FileChange = 'edit' | 'create' | 'delete';

export interface ChangedFile {
  path: RepoPath;
  change: FileChange;
}

/** One commit of the first-parent history, as git reports it against its first parent. */
export interface HistoryCommit {
  sha: string;
  parents: readonly string[];
  subject: string;
  files: readonly ChangedFile[];
  /**
   * Files it renamed (against its first parent, with git's rename detection; merges' too). Read
   * only to follow a file back to its path at the base of a backtest; absent: none known.
   */
  renames?: readonly { from: RepoPath; to: RepoPath }[];
}

export type SkipReason = 'merge' | 'no-files' | 'too-many-files' | 'no-code' | 'only-tests';

/** Why commits were skipped, for people: "188 merge(s)", "3 with only tests". */
export const SKIP_REASONS: Readonly<Record<SkipReason, string>> = {
  merge: 'merge(s)',
  'no-files': 'with only docs, markdown, lockfiles or ESLint suppressions',
  'too-many-files': 'with more files than --max-files',
  'no-code': 'with no code file',
  'only-tests': 'with only tests',
};

/** One commit replayed as an issue. `rank` is its place in history: 0 is the oldest. */
export interface CommitIssue {
  number: IssueNumber;
  rank: number;
  sha: string;
  title: string;
  /** The files it changed, sorted by path, docs, markdown and tool-written files left out. */
  files: ChangedFile[];
}

export interface SkippedCommit {
  sha: string;
  subject: string;
  reason: SkipReason;
}

export interface CommitBacklog {
  issues: CommitIssue[];
  skipped: SkippedCommit[];
}

/**
 * Files a tool writes, whose conflicts the tool mends by running again: lockfiles (the install),
 * and ESLint's bulk suppressions (`eslint --suppress-all`, `--prune-suppressions`), one entry per
 * linted file: two commits fixing lint in different files each drop their own entry, and git
 * merges the two (typescript-eslint: 27 of its last 300 commits change it; the four pairs a plan
 * put side by side each dropped a different entry).
 */
const TOOL_WRITTEN = new Set(['pnpm-lock.yaml', 'package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'bun.lock', 'bun.lockb', 'eslint-suppressions.json']);
const DOC_EXTENSION = /\.(?:md|mdx|markdown|rst|adoc)$/i;
const CODE_EXTENSION = /\.[cm]?[jt]sx?$/;

function baseName(path: RepoPath): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Docs (`*.md` and the like, anything under a `docs` folder) and tool-written files (lockfiles, ESLint's suppressions): never part of an issue. */
export function isLeftOut(path: RepoPath): boolean {
  return DOC_EXTENSION.test(path) || TOOL_WRITTEN.has(baseName(path)) || /(?:^|\/)docs\//.test(path);
}

/** A source file of the languages the import graph reads. */
export function isCodeFile(path: RepoPath): boolean {
  return CODE_EXTENSION.test(path) && !path.includes('node_modules/');
}

/** A test: `*.test.*`, `*.spec.*`, or anything under a `test`, `tests`, `__tests__` or `spec` folder (as waves harvest counts them). */
export function isTestFile(path: RepoPath): boolean {
  return /(?:^|\/)(?:__tests__|tests?|spec)\//.test(path) || /\.(?:test|spec)\.[cm]?[jt]sx?$/.test(path);
}

/** The pull-request number a subject ends with, `fix: x (#123)` → 123; the last one wins. */
export function subjectNumber(subject: string): IssueNumber | null {
  let found: IssueNumber | null = null;
  for (const match of subject.matchAll(/\(#(\d{1,9})\)/g)) {
    const n = Number(match[1]);
    if (n > 0) found = n;
  }
  return found;
}

/** A stable number for a commit without a free `(#N)`: its first 7 hex digits, plus one (never 0). */
export function commitNumber(sha: string): IssueNumber {
  return Number.parseInt(sha.slice(0, 7), 16) + 1;
}

function skipReason(commit: HistoryCommit, kept: readonly ChangedFile[], maxFiles: number): SkipReason | null {
  if (commit.parents.length > 1) return 'merge';
  if (kept.length === 0) return 'no-files';
  if (kept.length > maxFiles) return 'too-many-files';
  if (!kept.some((f) => isCodeFile(f.path))) return 'no-code';
  if (kept.every((f) => isTestFile(f.path))) return 'only-tests';
  return null;
}

/** The backlog of a range of commits, given oldest first. */
export function backlogFromCommits(commits: readonly HistoryCommit[], options: { maxFiles: number }): CommitBacklog {
  const skipped: SkippedCommit[] = [];
  const kept: { commit: HistoryCommit; files: ChangedFile[] }[] = [];
  for (const commit of commits) {
    const byPath = new Map<RepoPath, ChangedFile>();
    for (const file of commit.files) if (!isLeftOut(file.path)) byPath.set(file.path, { path: file.path, change: file.change });
    const files = [...byPath.values()].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
    const reason = skipReason(commit, files, options.maxFiles);
    if (reason) skipped.push({ sha: commit.sha, subject: commit.subject, reason });
    else kept.push({ commit, files });
  }
  // Subject numbers first, oldest first; then the others, derived from the commit id.
  const taken = new Set<IssueNumber>();
  const numbers: (IssueNumber | null)[] = kept.map(({ commit }) => {
    const n = subjectNumber(commit.subject);
    if (n === null || taken.has(n)) return null;
    taken.add(n);
    return n;
  });
  const issues = kept.map(({ commit, files }, rank) => {
    let number = numbers[rank]!;
    if (number === null) {
      number = commitNumber(commit.sha);
      while (taken.has(number)) number++;
      taken.add(number);
    }
    // A subject is an issue's title: GitHub's limit holds (a subject of 100,000 characters came whole into the report).
    return { number, rank, sha: commit.sha, title: cutText(commit.subject, MAX_TITLE_CHARS), files };
  });
  return { issues, skipped };
}
