import picomatch from 'picomatch';
import type { RepoPath } from '../types.js';
import type { RepoTree } from './repo-tree.js';

export function isGlob(pattern: string): boolean {
  return picomatch.scan(pattern).isGlob;
}

const matchers = new Map<string, (path: string) => boolean>();

/** A cached matcher for a glob (dotfiles included: `.github/**` must match). */
export function globMatcher(pattern: string): (path: string) => boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    matcher = picomatch(pattern, { dot: true });
    matchers.set(pattern, matcher);
  }
  return matcher;
}

/** Normalises a config path or glob: no `./`, no trailing slash. */
export function normalisePattern(pattern: string): string {
  return pattern.trim().replace(/^\.\/+/, '').replace(/\/+$/, '');
}

export type PatternLeaves = { kind: 'dir'; path: RepoPath } | { kind: 'files'; paths: RepoPath[] } | { kind: 'none' };

/**
 * What a config path or glob covers in this tree: `dir/**` (or a plain directory) is the directory
 * itself; any other glob, the files it matches.
 */
export function expandPattern(pattern: string, tree: RepoTree): PatternLeaves {
  const normal = normalisePattern(pattern);
  const recursive = /^(.*?)\/\*\*(?:\/\*)?$/.exec(normal);
  if (recursive && !isGlob(recursive[1]!) && tree.isDir(recursive[1]!)) return { kind: 'dir', path: recursive[1]! };
  if (!isGlob(normal)) {
    if (tree.isDir(normal)) return { kind: 'dir', path: normal };
    if (tree.isFile(normal)) return { kind: 'files', paths: [normal] };
    return { kind: 'none' };
  }
  const match = globMatcher(normal);
  const paths = tree.sorted.filter((file) => match(file));
  return paths.length > 0 ? { kind: 'files', paths } : { kind: 'none' };
}
