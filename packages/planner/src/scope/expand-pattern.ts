import type { RepoPath } from '../types.js';
import { globMatcher, isGlob, normalisePattern } from '../paths/globs.js';
import type { RepoTree } from './repo-tree.js';

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
