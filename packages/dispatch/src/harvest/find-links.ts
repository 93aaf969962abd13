/**
 * The symbolic links among a run's changes: in its work tree (read with lstat, never followed) or
 * in the commits the agent made itself (mode 120000 in git). A link in place of a file can lead
 * whoever opens it — a build, an editor, the next agent — anywhere on the machine, and one that
 * points out of the work tree is exactly that: the harvest never commits one, a person looks.
 */
import { readlink } from 'node:fs/promises';
import path from 'node:path';
import { touchedPaths, type ChangedPath } from '@waves/planner';
import { git } from './git-changes.js';
import { lstatInTree } from './path-links.js';

export interface FoundLink {
  path: string;
  target: string;
  /** Where the link is: left in the work tree, or in a commit the agent made. */
  where: 'work tree' | 'commit';
  /** Its target leaves the work tree (absolute, or climbing out with `..`). */
  outside: boolean;
}

export async function findLinks(cwd: string, base: string | null, head: string | null, changes: readonly ChangedPath[]): Promise<FoundLink[]> {
  const found = new Map<string, FoundLink>();
  const outside = (file: string, target: string) => {
    const rel = path.relative(cwd, path.resolve(path.dirname(path.join(cwd, file)), target));
    return path.isAbsolute(target) || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
  };
  for (const file of new Set(changes.filter((c) => c.change !== 'deleted').flatMap(touchedPaths))) {
    const stat = await lstatInTree(cwd, file);
    if (!stat?.isSymbolicLink()) continue;
    const target = await readlink(path.join(cwd, file));
    found.set(file, { path: file, target, where: 'work tree', outside: outside(file, target) });
  }
  if (base !== null && head !== null && base !== head) {
    const fields = (await git(cwd, ['-c', 'core.quotepath=off', 'diff', '--raw', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', '--ignore-submodules=dirty', base, head, '--'])).split('\0');
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [, mode, , blob] = fields[i]!.split(' ');
      const file = fields[i + 1]!;
      if (mode !== '120000' || found.has(file)) continue;
      const target = await git(cwd, ['cat-file', 'blob', blob!]);
      found.set(file, { path: file, target, where: 'commit', outside: outside(file, target) });
    }
  }
  return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** One line for the reason. */
export function describeLinks(links: readonly FoundLink[]): string {
  const one = (l: FoundLink) => `${l.path} is a symlink to ${l.target}${l.outside ? ' (outside the work tree)' : ''}${l.where === 'commit' ? ' in the agent\'s own commits' : ''}`;
  const shown = links.slice(0, 5).map(one).join('; ');
  return `${shown}${links.length > 5 ? ` and ${links.length - 5} more` : ''}: waves never follows nor commits a link, a person must look`;
}
