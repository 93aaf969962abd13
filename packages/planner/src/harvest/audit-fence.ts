/**
 * The fence audit of a finished agent run: every path the agent changed is inside the issue's
 * planned scope (its leaves; a directory leaf, written with a trailing `/`, covers everything
 * under it) or outside it. Root files — the repository's shared files, which only a serial issue
 * may touch — are flagged. Pure: the changed paths come from git, the fence from the run record.
 */
import { globMatcher, normalisePattern } from '../paths/globs.js';
import { BUILTIN_SERIAL_GLOBS } from '../scope/serial-paths.js';
import type { RepoPath } from '../types.js';

export type ChangeKind = 'added' | 'modified' | 'deleted' | 'renamed';

export interface ChangedPath {
  path: RepoPath;
  change: ChangeKind;
  /** For a rename: where the file was (its removal is a change to that path too). */
  from?: RepoPath;
}

export interface FenceAudit {
  /** Changed paths inside the fence (for a rename: both ends inside). */
  inFence: ChangedPath[];
  /** Changed paths outside it, each with why it matters. */
  outOfFence: (ChangedPath & { root: boolean })[];
}

/** The paths a change touches: a rename touches where the file was and where it is. */
export function touchedPaths(change: ChangedPath): RepoPath[] {
  return change.from === undefined ? [change.path] : [change.from, change.path];
}

/** True when `path` (a file) lies inside one of the fence's leaves (`dir/` leaves cover what is under them). */
export function inFence(fence: readonly string[], path: RepoPath): boolean {
  return fence.some((leaf) => {
    if (leaf === '.' || leaf === './' || leaf === '/') return true;
    return leaf.endsWith('/') ? path.startsWith(leaf) : leaf === path;
  });
}

/**
 * True for a file every package depends on: a file at the top of the repository, a built-in root
 * file (manifests, lockfiles, base tsconfig, CI config) or a configured serial glob.
 */
export function isRootFile(path: RepoPath, serialGlobs: readonly string[] = []): boolean {
  if (!path.includes('/')) return true;
  return [...BUILTIN_SERIAL_GLOBS, ...serialGlobs.map(normalisePattern)].some((glob) => globMatcher(glob)(path));
}

// The lockfile names: the built-in root files that count in any folder.
const LOCKFILES = BUILTIN_SERIAL_GLOBS.filter((glob) => glob.startsWith('**/')).map((glob) => glob.slice(3));

/**
 * The fence with what a manifest change brings along: an issue allowed to edit a `package.json`
 * may update the lockfile its install rewrites (beside the manifest, or at the root of a workspace).
 */
export function fenceWithCompanions(fence: readonly string[]): string[] {
  const out = new Set(fence);
  for (const leaf of fence) {
    if (leaf !== 'package.json' && !leaf.endsWith('/package.json')) continue;
    const dir = leaf.slice(0, leaf.length - 'package.json'.length);
    for (const lock of LOCKFILES) {
      out.add(`${dir}${lock}`);
      out.add(lock);
    }
  }
  return [...out];
}

export function auditFence(changes: readonly ChangedPath[], declared: readonly string[], options: { serial: boolean; serialGlobs?: readonly string[] }): FenceAudit {
  const fence = fenceWithCompanions(declared);
  const audit: FenceAudit = { inFence: [], outOfFence: [] };
  for (const change of [...changes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const paths = touchedPaths(change);
    if (paths.every((p) => inFence(fence, p))) {
      audit.inFence.push(change);
      continue;
    }
    // A serial issue may touch root files it names; outside its fence any root file is flagged too.
    const root = paths.some((p) => !inFence(fence, p) && isRootFile(p, options.serialGlobs)) && !options.serial;
    audit.outOfFence.push({ ...change, root });
  }
  return audit;
}
