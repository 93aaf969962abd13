import type { RepoPath } from '../types.js';
import { baseName, normalisePattern, parentDir } from '../paths/repo-paths.js';
import type { RepoTree } from './repo-tree.js';

/** Folders that conventionally hold packages, besides the parents of the workspace packages. */
const PACKAGE_FOLDERS = ['packages', 'apps', 'libs', 'lib', 'modules', 'services', 'internal', 'plugins', 'tools', 'crates', 'src'];

/** `lane:cli`, `area: cli`, `lane/cli` → `cli`; other labels → null. */
export function laneFromLabel(label: string): string | null {
  const match = /^\s*(?:lane|area)\s*[:/]\s*(\S.*?)\s*$/i.exec(label);
  return match ? match[1]! : null;
}

/** `category:bug` → `bug`; other labels → null. */
export function categoryFromLabel(label: string): string | null {
  const match = /^\s*category\s*[:/]\s*(\S.*?)\s*$/i.exec(label);
  return match ? match[1]!.toLowerCase() : null;
}

/**
 * The directory a lane name stands for: a workspace package (by name, unscoped name or directory
 * name), a directory of that name at the root, or one under a packages folder. Null when nothing
 * matches. Names are compared without case, since labels are usually lower-case.
 */
export function resolveLaneName(name: string, tree: RepoTree): RepoPath | null {
  const wanted = normalisePattern(name);
  if (wanted === '' || wanted.split('/').some((s) => s === '..' || s === '.') || wanted.startsWith('/') || wanted.startsWith('~')) {
    return null;
  }
  const lower = wanted.toLowerCase();
  const byName = tree.packages.filter(
    (pkg) => pkg.dir !== '' && (pkg.name.toLowerCase() === lower || pkg.name.toLowerCase().replace(/^@[^/]+\//, '') === lower),
  );
  if (byName.length > 0) return byName.map((p) => p.dir).sort()[0]!;
  const byDir = tree.packages.filter((pkg) => pkg.dir !== '' && (pkg.dir.toLowerCase() === lower || baseName(pkg.dir).toLowerCase() === lower));
  if (byDir.length > 0) return byDir.map((p) => p.dir).sort()[0]!;
  if (tree.isDir(wanted)) return wanted;
  const folders = new Set(PACKAGE_FOLDERS);
  for (const pkg of tree.packages) if (pkg.dir !== '') folders.add(parentDir(pkg.dir));
  for (const folder of [...folders].sort()) {
    const candidate = folder === '' ? wanted : `${folder}/${wanted}`;
    if (tree.isDir(candidate)) return candidate;
  }
  return null;
}
