/**
 * The truth a backtest judges a plan by: which replayed commits really could not have been built
 * side by side. Two issues truly conflict when
 * - they touch the same path (`path`);
 * - one touches a path inside a directory the other creates — a directory that does not exist at
 *   the base and that one of its new files brings (`new-dir`; two issues creating the same new
 *   directory conflict this way);
 * - at the base, a file one touches directly imports a file the other touches (`import`: whatever
 *   edges the graph holds — static, type, dynamic, require, re-export, JSON — or those of an
 *   independent tool's graph).
 * Paths and new directories are indexed, imports followed from each touched file, so the cost
 * grows with the files touched and their imports, not with the square of the backlog. Pure.
 */
import type { IssueNumber, RepoPath } from '../types.js';
import type { CommitIssue } from './backlog-from-commits.js';

export type TruthKind = 'path' | 'new-dir' | 'import';

export interface TruthEvidence {
  kind: TruthKind;
  detail: string;
}

/** A truly conflicting pair (`a` < `b`), with the evidence, at most a few items of each kind. */
export interface TrueConflict {
  a: IssueNumber;
  b: IssueNumber;
  evidence: TruthEvidence[];
}

/** The repository at the base, as the truth needs it. */
export interface TruthBase {
  /** Whether a directory exists at the base. */
  isDir(path: RepoPath): boolean;
  /** The files a file imports directly at the base (none for a file the base does not have). */
  importsOf(file: RepoPath): Iterable<RepoPath>;
}

const MAX_EVIDENCE_PER_KIND = 3;
const KIND_ORDER: readonly TruthKind[] = ['path', 'new-dir', 'import'];

export function pairKey(x: IssueNumber, y: IssueNumber): string {
  return x < y ? `${x}:${y}` : `${y}:${x}`;
}

function parentDir(path: RepoPath): RepoPath {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** Directories that do not exist at the base and that the issue's new files bring, outermost included. */
function createdDirs(issue: CommitIssue, base: TruthBase): Set<RepoPath> {
  const dirs = new Set<RepoPath>();
  for (const file of issue.files) {
    if (file.change !== 'create') continue;
    for (let dir = parentDir(file.path); dir !== '' && !base.isDir(dir); dir = parentDir(dir)) dirs.add(dir);
  }
  return dirs;
}

export function findTrueConflicts(issues: readonly CommitIssue[], base: TruthBase): TrueConflict[] {
  const pairs = new Map<string, { a: IssueNumber; b: IssueNumber; evidence: Map<TruthKind, Set<string>> }>();
  const add = (x: IssueNumber, y: IssueNumber, kind: TruthKind, detail: string) => {
    if (x === y) return;
    const key = pairKey(x, y);
    let pair = pairs.get(key);
    if (!pair) pairs.set(key, (pair = { a: Math.min(x, y), b: Math.max(x, y), evidence: new Map() }));
    let details = pair.evidence.get(kind);
    if (!details) pair.evidence.set(kind, (details = new Set()));
    if (details.size < MAX_EVIDENCE_PER_KIND) details.add(detail);
  };

  const owners = new Map<RepoPath, IssueNumber[]>();
  for (const issue of issues) {
    for (const file of issue.files) {
      let list = owners.get(file.path);
      if (!list) owners.set(file.path, (list = []));
      list.push(issue.number);
    }
  }
  const sorted = [...issues].sort((x, y) => x.number - y.number);

  // The same path.
  for (const [path, list] of [...owners].sort(([p], [q]) => (p < q ? -1 : 1))) {
    for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) add(list[i]!, list[j]!, 'path', `both touch ${path}`);
  }

  // A path inside a directory the other creates.
  const creators = new Map<RepoPath, IssueNumber[]>();
  for (const issue of sorted) {
    for (const dir of [...createdDirs(issue, base)].sort()) {
      let list = creators.get(dir);
      if (!list) creators.set(dir, (list = []));
      list.push(issue.number);
    }
  }
  if (creators.size > 0) {
    for (const issue of sorted) {
      for (const file of issue.files) {
        for (let dir = parentDir(file.path); dir !== ''; dir = parentDir(dir)) {
          for (const creator of creators.get(dir) ?? []) {
            if (creator !== issue.number) add(creator, issue.number, 'new-dir', `#${creator} creates ${dir}/, #${issue.number} touches ${file.path}`);
          }
        }
      }
    }
  }

  // A direct import at the base.
  for (const issue of sorted) {
    for (const file of issue.files) {
      for (const target of [...base.importsOf(file.path)].sort()) {
        for (const owner of owners.get(target) ?? []) {
          if (owner !== issue.number) add(issue.number, owner, 'import', `${file.path} (#${issue.number}) imports ${target} (#${owner})`);
        }
      }
    }
  }

  return [...pairs.values()]
    .sort((p, q) => p.a - q.a || p.b - q.b)
    .map(({ a, b, evidence }) => ({
      a,
      b,
      evidence: KIND_ORDER.flatMap((kind) => [...(evidence.get(kind) ?? [])].sort().map((detail) => ({ kind, detail }))),
    }));
}
