import { baseName, parentDir } from '../paths/repo-paths.js';
import type { RepoPath, WorkspacePackage } from '../types.js';
import { lowerBound } from '../sorted-search.js';

/**
 * The repository's file list, indexed for the questions scope resolution and conflict search
 * ask: is this a file or a directory, what lies under a directory, which package or subsystem a
 * path belongs to, which files end with a given suffix. Built from the list alone: nothing here
 * touches the file system, so a path from an issue can be looked up safely.
 */
export interface RepoTree {
  readonly sorted: readonly RepoPath[];
  readonly packages: readonly WorkspacePackage[];
  isFile(path: RepoPath): boolean;
  isDir(path: RepoPath): boolean;
  /** Every file under a directory (`""` is the root), sorted. */
  filesUnder(dir: RepoPath): RepoPath[];
  /** The files directly at the root (no directory), sorted: what "the root's own files" are. */
  readonly rootFiles: readonly RepoPath[];
  /** The innermost workspace package containing the path (the root package, if any, contains everything else). */
  packageOf(path: RepoPath): WorkspacePackage | null;
  /** A package directory, else the top-level directory, else `(root)` for files at the root. */
  subsystemOf(path: RepoPath): string;
  /** Files whose path ends with `/<suffix>`. */
  filesEndingWith(suffix: string): RepoPath[];
  /** Directories whose path ends with `/<suffix>`. */
  dirsEndingWith(suffix: string): RepoPath[];
  /** The symbolic link leading outside the repository that the path is, or lies under; else null. */
  linkOut(path: RepoPath): RepoPath | null;
  /** The symbolic links leading outside the repository that lie inside a folder (`''`: anywhere). */
  linksOutUnder(dir: RepoPath): RepoPath[];
}

export const ROOT_SUBSYSTEM = '(root)';

const cache = new WeakMap<readonly RepoPath[], Map<readonly WorkspacePackage[], RepoTree>>();

export function createRepoTree(files: readonly RepoPath[], packages: readonly WorkspacePackage[] = [], linksOut: readonly RepoPath[] = []): RepoTree {
  if (linksOut.length > 0) return buildTree(files, packages, linksOut);
  let byPackages = cache.get(files);
  const hit = byPackages?.get(packages);
  if (hit) return hit;
  const tree = buildTree(files, packages);
  if (!byPackages) {
    byPackages = new Map();
    cache.set(files, byPackages);
  }
  byPackages.set(packages, tree);
  return tree;
}

function buildTree(files: readonly RepoPath[], packages: readonly WorkspacePackage[], linksOut: readonly RepoPath[] = []): RepoTree {
  const sorted = [...new Set(files)].sort();
  const fileSet = new Set(sorted);
  const dirSet = new Set<string>();
  const byBase = new Map<string, RepoPath[]>();
  const dirsByBase = new Map<string, RepoPath[]>();
  for (const file of sorted) {
    const base = baseName(file);
    let list = byBase.get(base);
    if (!list) byBase.set(base, (list = []));
    list.push(file);
    let dir = parentDir(file);
    while (dir !== '' && !dirSet.has(dir)) {
      dirSet.add(dir);
      const dirBase = baseName(dir);
      let dirs = dirsByBase.get(dirBase);
      if (!dirs) dirsByBase.set(dirBase, (dirs = []));
      dirs.push(dir);
      dir = parentDir(dir);
    }
  }
  for (const list of dirsByBase.values()) list.sort();
  const pkgs = [...packages].sort((a, b) => b.dir.length - a.dir.length || (a.dir < b.dir ? -1 : 1));
  const pkgByDir = new Map(pkgs.map((p) => [p.dir, p]));

  const packageOf = (path: RepoPath): WorkspacePackage | null => {
    let dir = fileSet.has(path) || !dirSet.has(path) ? parentDir(path) : path;
    for (;;) {
      const pkg = pkgByDir.get(dir);
      if (pkg) return pkg;
      if (dir === '') return null;
      dir = parentDir(dir);
    }
  };

  return {
    sorted,
    packages: pkgs,
    rootFiles: sorted.filter((file) => !file.includes('/')),
    isFile: (path) => fileSet.has(path),
    isDir: (path) => dirSet.has(path),
    filesUnder(dir) {
      if (dir === '') return [...sorted];
      const prefix = `${dir}/`;
      const out: RepoPath[] = [];
      for (let i = lowerBound(sorted, prefix); i < sorted.length && sorted[i]!.startsWith(prefix); i++) out.push(sorted[i]!);
      return out;
    },
    packageOf,
    subsystemOf(path) {
      const pkg = packageOf(path);
      if (pkg && pkg.dir !== '') return pkg.dir;
      const slash = path.indexOf('/');
      if (slash > 0) return path.slice(0, slash);
      return dirSet.has(path) ? path : ROOT_SUBSYSTEM;
    },
    filesEndingWith(suffix) {
      const list = byBase.get(baseName(suffix)) ?? [];
      const tail = `/${suffix}`;
      return list.filter((file) => file.endsWith(tail));
    },
    dirsEndingWith(suffix) {
      const list = dirsByBase.get(baseName(suffix)) ?? [];
      const tail = `/${suffix}`;
      return list.filter((dir) => dir.endsWith(tail));
    },
    linkOut(path) {
      return linksOut.find((link) => path === link || path.startsWith(`${link}/`)) ?? null;
    },
    linksOutUnder(dir) {
      return linksOut.filter((link) => dir === '' || link.startsWith(`${dir}/`));
    },
  };
}
