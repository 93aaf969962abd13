/**
 * A path an agent names, as the repository path it writes — or why it names none. Everything
 * here comes from the agent (a hook's input, an argument, a file it wrote): it must stay inside
 * the run's work tree, go through no symbolic link (a write through one lands elsewhere), and not
 * be waves' own or git's files.
 */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { checkPathSpelling } from '@waves/planner';

export type FencePath = { ok: true; repoPath: string } | { ok: false; reason: 'invalid' | 'own'; message: string };

/** Folders whose files are never a repository change an agent may be granted. */
const OWN_TOP = new Set(['.git', '.waves', '.dispatch-runs']);

/**
 * The repository path `text` names in the work tree `tree` (absolute; relative paths are read from
 * it), checked: no NUL or control-only text, inside the tree (`..`, absolute paths elsewhere), no
 * symbolic link on the way (the last name included), not under `.git`, `.waves` or `.dispatch-runs`.
 */
export async function resolveFencePath(tree: string, text: string): Promise<FencePath> {
  const invalid = (message: string): FencePath => ({ ok: false, reason: 'invalid', message });
  if (typeof text !== 'string' || text === '' || text.length > 4096) return invalid('not a path');
  if (text.includes('\0')) return invalid('a path holding a NUL byte');
  const realTree = await realpath(tree).catch(() => path.resolve(tree));
  const absolute = path.resolve(tree, text);
  // An absolute path may name the tree by its real path or the one it was given.
  let relative: string | null = null;
  for (const base of [path.resolve(tree), realTree]) {
    const rel = path.relative(base, absolute);
    if (rel !== '' && !rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel)) {
      relative = rel;
      break;
    }
  }
  if (relative === null) return invalid('outside the work tree of the run');
  // On POSIX a backslash is a character of a name, not a separator: `packages\\core\\x.ts` is one
  // file at the top, and leasing `packages/core/x.ts` for it would grant a file nobody wrote.
  if (path.sep === '/' && relative.includes('\\')) return invalid('a file name holding a backslash (one name, not a path): waves leases no such file');
  // The kernel resolves `..` after the link before it (`L/../x` is x beside L's target), where
  // path.resolve drops the link: a path spelled with `..` is walked as the kernel walks it.
  if (text.split(/[\\/]/).includes('..')) {
    const through = await linkBeforeDotDot(tree, realTree, text);
    if (through !== null) return invalid(`${through} is a symbolic link, and a \`..\` after it leads elsewhere than the path says`);
  }
  // As the file system spells it (no Unicode composition): each name on the way is looked at below.
  const checked = checkPathSpelling(relative.split(path.sep).join('/'));
  if (!checked.ok || checked.lane === '.') return invalid(checked.ok ? 'the whole work tree is not a file' : checked.problem);
  const repoPath = checked.lane;
  const top = repoPath.split('/')[0]!;
  if (OWN_TOP.has(top)) return { ok: false, reason: 'own', message: `${top}/ holds git's or waves' own files, never a change of the issue` };
  // Every name on the way, from the tree down, must be a folder (or absent), the last a file (or absent).
  let at = realTree;
  const segments = repoPath.split('/');
  for (let i = 0; i < segments.length; i++) {
    at = path.join(at, segments[i]!);
    const info = await lstat(at).catch(() => null);
    if (info === null) break;
    if (info.isSymbolicLink()) return invalid(`${segments.slice(0, i + 1).join('/')} is a symbolic link: a write through it lands elsewhere`);
    if (i < segments.length - 1 && !info.isDirectory()) return invalid(`${segments.slice(0, i + 1).join('/')} is not a folder`);
    if (i === segments.length - 1 && info.isDirectory()) return invalid('a folder, not a file');
  }
  return { ok: true, repoPath };
}

/**
 * The first symbolic link (tree-relative, as spelled) that a `..` of `text` comes after, walking
 * the names as the kernel does; null when none. A path whose spelling does not start inside the
 * tree (an absolute path by another name) is judged by its whole spelling: any link refuses it.
 */
async function linkBeforeDotDot(tree: string, realTree: string, text: string): Promise<string | null> {
  let rest: string[];
  if (path.isAbsolute(text)) {
    const prefix = [path.resolve(tree), realTree].find((base) => text === base || text.startsWith(`${base}/`));
    if (prefix === undefined) return text;
    rest = text.slice(prefix.length).split('/');
  } else rest = text.split(/[\\/]/);
  let at = realTree;
  const spelled: string[] = [];
  let link: string | null = null;
  for (const segment of rest) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (link !== null) return link;
      at = path.dirname(at);
      spelled.pop();
      continue;
    }
    at = path.join(at, segment);
    spelled.push(segment);
    const info = await lstat(at).catch(() => null);
    if (info === null) continue;
    if (info.isSymbolicLink()) {
      link = spelled.join('/');
      // Followed from here as the kernel would: the real place the next `..` leaves from.
      const real = await realpath(at).catch(() => null);
      if (real === null) return link;
      at = real;
    }
  }
  return null;
}
