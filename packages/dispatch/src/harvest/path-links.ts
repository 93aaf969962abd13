/**
 * Paths in a tree an agent wrote, read without following links. `lstat` does not follow the last
 * part of a path but does follow every folder before it: a file under a folder an agent replaced
 * with a link would be read, written or deleted wherever the link leads. So each folder of the
 * path is checked first, from the top down; the first that is not a real folder is where the path
 * stops being the tree's.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import path from 'node:path';

export interface Blocker {
  /** The ancestor, relative to the root (`/`-separated, as git writes paths). */
  path: string;
  kind: 'link' | 'file' | 'other';
}

/** The first folder on the way from `root` to `rel` that is not a real folder (a link, a file…), or null. */
export async function blockingAncestor(root: string, rel: string): Promise<Blocker | null> {
  const parts = rel.split('/').filter((p) => p !== '');
  for (let i = 1; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join('/');
    const stat = await lstat(path.join(root, prefix)).catch(() => null);
    // Nothing there: nothing below it either, so nothing is reached through it.
    if (stat === null) return null;
    if (stat.isDirectory()) continue;
    return { path: prefix, kind: kindOf(stat) };
  }
  return null;
}

export function kindOf(stat: Stats): Blocker['kind'] {
  return stat.isSymbolicLink() ? 'link' : stat.isFile() ? 'file' : 'other';
}

/** `lstat` of `rel` under `root` when every folder on the way is a real one; null otherwise or when absent. */
export async function lstatInTree(root: string, rel: string): Promise<Stats | null> {
  if ((await blockingAncestor(root, rel)) !== null) return null;
  return lstat(path.join(root, rel)).catch(() => null);
}

/**
 * The content of a regular file of the tree, or null when it is not one (a link, a FIFO, a folder,
 * under a link) or is bigger than `maxBytes`. O_NOFOLLOW and O_NONBLOCK: a file swapped for a link
 * or a FIFO since it was checked is neither followed nor waited on.
 */
export async function readTreeFile(root: string, rel: string, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer | null> {
  const stat = await lstatInTree(root, rel);
  if (stat === null || !stat.isFile() || stat.size > maxBytes) return null;
  const handle = await open(path.join(root, rel), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return null;
  try {
    const again = await handle.stat();
    if (!again.isFile() || again.size > maxBytes) return null;
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
