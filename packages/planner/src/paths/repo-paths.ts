/**
 * Repository paths as plain strings: POSIX separators, relative to the root, no leading `./`, no
 * trailing `/`, `""` for the root itself. These helpers serve every stage that names files — the
 * graph builder and resolver as much as scope, conflicts and leases — so they live below all of
 * them and import nothing.
 */
import type { RepoPath } from '../types.js';

/** The directory holding a path (`""` for a path at the root). */
export function parentDir(path: RepoPath): RepoPath {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** The last segment of a path. */
export function baseName(path: RepoPath): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** True when `outer` is `inner` or one of its ancestor directories (`""`, the root, contains everything). */
export function containsPath(outer: RepoPath, inner: RepoPath): boolean {
  return outer === '' || inner === outer || (inner.startsWith(outer) && inner.charCodeAt(outer.length) === 47);
}
