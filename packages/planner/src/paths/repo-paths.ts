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

/**
 * `text` without its trailing `/`s. A loop, not `.replace(/\/+$/, '')`: V8 runs that in time
 * quadratic in a run of `/` that does not end the text (a workspace glob of 300,000 took 67 s).
 */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 47 /* / */) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without a leading `./` and the `/`s after it (`.//a` → `a`; `././a` → `./a`, as `/^\.\/+/` did). */
export function withoutLeadingDotSlash(text: string): string {
  if (!text.startsWith('./')) return text;
  let start = 2;
  while (text.charCodeAt(start) === 47) start++;
  return text.slice(start);
}

/** A path or glob as a repository or its config writes it: trimmed, no leading `./`, no trailing `/`. */
export function normalisePattern(pattern: string): string {
  return withoutTrailingSlashes(withoutLeadingDotSlash(pattern.trim()));
}
