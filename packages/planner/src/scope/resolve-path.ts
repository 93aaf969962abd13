/**
 * Resolves a path an issue names against the repository's file list: an existing file or
 * directory (as written, or written relative to a package when only one path ends with it), a new
 * file in an existing directory, or a new directory, placed under its nearest existing ancestor.
 * Pure: the tree is the only view of the repository, and nothing is ever read.
 */
import { baseName, containsPath, parentDir } from '../paths/repo-paths.js';
import type { RepoPath } from '../types.js';
import type { RepoTree } from './repo-tree.js';

export type Resolution =
  | { kind: 'file' | 'dir' | 'new-file'; path: RepoPath }
  /** `path`: the first directory that does not exist yet; `named`: the whole new path, as placed. */
  | { kind: 'new-dir'; path: RepoPath; named: RepoPath }
  | { kind: 'unresolved'; reason: string };

export interface ResolveOptions {
  /** The mention names a directory (trailing slash, a `tree` URL). */
  directory?: boolean;
  /** The lane directories: they decide between several paths ending with the same name. */
  laneDirs?: readonly RepoPath[];
  /** Whether the path may lie in directories that do not exist yet (explicit mentions only). */
  newDirectories?: boolean;
}

function pickWithin(matches: RepoPath[], laneDirs: readonly RepoPath[]): RepoPath[] {
  if (matches.length <= 1 || laneDirs.length === 0) return matches;
  const inLane = matches.filter((m) => laneDirs.some((dir) => containsPath(dir, m)));
  return inLane.length > 0 ? inLane : matches;
}

function describeMatches(matches: RepoPath[]): string {
  const shown = matches.slice(0, 3).join(', ');
  return matches.length > 3 ? `${shown}, …` : shown;
}

function hasExtension(path: RepoPath): boolean {
  const base = baseName(path);
  const dot = base.lastIndexOf('.');
  return dot > 0 && dot < base.length - 1;
}

/** Resolves one candidate path against the tree (see `LeafKind` for what it may become). */
/** Deeper paths are data, not paths (no repository nests folders this deep); placing one costs its depth squared. */
export const MAX_PATH_DEPTH = 64;

export function resolvePath(candidate: RepoPath, tree: RepoTree, opts: ResolveOptions = {}): Resolution {
  if (candidate.split('/', MAX_PATH_DEPTH + 1).length > MAX_PATH_DEPTH) return { kind: 'unresolved', reason: `more than ${MAX_PATH_DEPTH} folders deep` };
  const resolved = resolveInTree(candidate, tree, opts);
  // A symbolic link out of the repository (or a path through one) is never a fence: an agent's
  // writes there would land outside.
  const at = resolved.kind === 'unresolved' ? tree.linkOut(candidate) : tree.linkOut(resolved.kind === 'new-dir' ? resolved.named : resolved.path);
  return at === null ? resolved : { kind: 'unresolved', reason: `${at} is a symbolic link leading outside the repository` };
}

function resolveInTree(candidate: RepoPath, tree: RepoTree, opts: ResolveOptions): Resolution {
  const laneDirs = opts.laneDirs ?? [];
  if (!opts.directory && tree.isFile(candidate)) return { kind: 'file', path: candidate };
  if (tree.isDir(candidate)) return { kind: 'dir', path: candidate };
  const pkg = tree.packages.find((p) => p.name === candidate && p.dir !== '');
  if (pkg) return { kind: 'dir', path: pkg.dir };
  // A path written relative to some package (`src/scope.ts`): accept it when it is unambiguous.
  const files = opts.directory ? [] : pickWithin(tree.filesEndingWith(candidate), laneDirs);
  const dirs = pickWithin(tree.dirsEndingWith(candidate), laneDirs);
  if (files.length + dirs.length === 1) return files.length === 1 ? { kind: 'file', path: files[0]! } : { kind: 'dir', path: dirs[0]! };
  if (files.length + dirs.length > 1) {
    return { kind: 'unresolved', reason: `ambiguous: ${files.length + dirs.length} paths end with it (${describeMatches([...files, ...dirs])})` };
  }
  if (!opts.directory) {
    if (!hasExtension(candidate)) return { kind: 'unresolved', reason: 'no such file or directory' };
    const parent = parentDir(candidate);
    if (parent === '') return { kind: 'unresolved', reason: 'no file of that name, and no directory given for a new one' };
    if (tree.isDir(parent)) return { kind: 'new-file', path: candidate };
    const parents = pickWithin(tree.dirsEndingWith(parent), laneDirs);
    if (parents.length === 1) return { kind: 'new-file', path: `${parents[0]}/${baseName(candidate)}` };
    if (parents.length > 1) return { kind: 'unresolved', reason: `ambiguous directory: ${describeMatches(parents)}` };
  }
  if (!opts.newDirectories) return { kind: 'unresolved', reason: `directory ${opts.directory ? candidate : parentDir(candidate)} does not exist` };
  return placeNewPath(candidate, opts.directory === true, tree, laneDirs);
}

/**
 * A path whose directory does not exist yet: its nearest existing ancestor, the longest leading
 * directories that exist — at the root, or else, as for files, written relative to a package
 * when one directory alone ends with them — or the root itself (a new top-level directory). The
 * leaf is the first directory to create under that ancestor: two issues creating it, or files
 * in it, touch the same leaf.
 */
function placeNewPath(candidate: RepoPath, directory: boolean, tree: RepoTree, laneDirs: readonly RepoPath[]): Resolution {
  const segments = candidate.split('/');
  const dirSegments = directory ? segments.length : segments.length - 1;
  let anchor = '';
  let used = 0;
  for (let k = dirSegments - 1; k >= 1; k--) {
    const prefix = segments.slice(0, k).join('/');
    if (tree.isDir(prefix)) {
      anchor = prefix;
      used = k;
      break;
    }
    const matches = pickWithin(tree.dirsEndingWith(prefix), laneDirs);
    if (matches.length > 1) return { kind: 'unresolved', reason: `ambiguous directory: ${describeMatches(matches)}` };
    if (matches.length === 1) {
      anchor = matches[0]!;
      used = k;
      break;
    }
  }
  const join = (dir: RepoPath, rest: readonly string[]) => [...(dir === '' ? [] : [dir]), ...rest].join('/');
  const first = join(anchor, [segments[used]!]);
  if (tree.isFile(first)) return { kind: 'unresolved', reason: `${first} is a file, not a directory` };
  return { kind: 'new-dir', path: first, named: join(anchor, segments.slice(used)) };
}
