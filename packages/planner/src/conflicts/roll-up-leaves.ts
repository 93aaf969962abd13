import { isDirectoryLeaf, type ScopeLeaf } from '../scope/extract-scope.js';
import { parentDir } from '../paths/repo-paths.js';
import { ROOT_SUBSYSTEM, type RepoTree } from '../scope/repo-tree.js';
import type { Granularity, RepoPath } from '../types.js';

export interface Leaf {
  path: RepoPath;
  /** A directory stands for every file under it. */
  dir: boolean;
}

/**
 * Rolls leaves up to the granularity compared: `file` keeps them, `dir` replaces a file by its
 * directory, `package` by its package (or top-level directory). Root files stay files — rolling
 * `README.md` up to the root would make it overlap everything. A new directory is a directory
 * already; by package it goes to the package of its nearest existing ancestor, and a new package
 * (no package holds it) stays itself rather than swallowing its whole top-level folder. Leaves
 * inside another are folded.
 */
export function rollUpLeaves(leaves: readonly Pick<ScopeLeaf, 'path' | 'kind'>[], granularity: Granularity, tree: RepoTree): Leaf[] {
  const rolled = new Map<RepoPath, Leaf>();
  for (const leaf of leaves) {
    let out: Leaf = { path: leaf.path, dir: isDirectoryLeaf(leaf.kind) };
    if (granularity === 'dir' && !out.dir && parentDir(leaf.path) !== '') out = { path: parentDir(leaf.path), dir: true };
    if (granularity === 'package' && leaf.kind === 'new-dir') {
      const pkg = tree.packageOf(leaf.path);
      if (pkg && pkg.dir !== '') out = { path: pkg.dir, dir: true };
    } else if (granularity === 'package') {
      const subsystem = tree.subsystemOf(leaf.path);
      if (subsystem !== ROOT_SUBSYSTEM && subsystem !== leaf.path) out = { path: subsystem, dir: true };
    }
    const existing = rolled.get(out.path);
    if (!existing || (out.dir && !existing.dir)) rolled.set(out.path, out);
  }
  const sorted = [...rolled.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
  const dirs = new Set(sorted.filter((leaf) => leaf.dir).map((leaf) => leaf.path));
  return sorted.filter((leaf) => !hasAncestorIn(leaf.path, dirs));
}

/** True when a proper ancestor directory of `path` is in `dirs`. */
export function hasAncestorIn(path: RepoPath, dirs: ReadonlySet<RepoPath>): boolean {
  for (let dir = parentDir(path); dir !== ''; dir = parentDir(dir)) if (dirs.has(dir)) return true;
  return false;
}

/** The path as shown in a plan: directories end with `/`. */
export function leafLabel(leaf: Leaf): string {
  return leaf.dir ? `${leaf.path}/` : leaf.path;
}

/**
 * The fence as the plan shows it and dispatch enforces it: the rolled-up leaves, and beside them
 * each control file the issue named (`IssueScope.namedControlFiles`) that a folder leaf holds — a
 * folder does not cover a control file (control-files.ts), so the file the issue asked to change
 * is listed itself, whatever the lane or the granularity rolled it into. Sorted as the leaves are.
 */
export function fenceLabels(leaves: readonly Leaf[], namedControlFiles: readonly RepoPath[]): string[] {
  const listed = new Set(leaves.filter((leaf) => !leaf.dir).map((leaf) => leaf.path));
  const beside = namedControlFiles.filter((file) => !listed.has(file));
  if (beside.length === 0) return leaves.map(leafLabel);
  const all = [...leaves, ...beside.map((path) => ({ path, dir: false }))];
  return all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map(leafLabel);
}
