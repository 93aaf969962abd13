/**
 * The caches waves keeps in the repository (`.waves/cache/`: the import graph, the names and
 * words of files, the history) are as trusted as the checkout — and an agent of the run can write
 * them: emptied imports there made a later plan put conflicting issues in one wave (red team B).
 * No waves process writes them while a run runs (its supervisor reads them only), so a cache file
 * changed between the run's start and its end is removed at its harvest, and the next plan
 * rebuilds it. Changed is read from ctime, which no process can set back (mtime it can).
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';

export const CACHE_DIR = path.join('.waves', 'cache');

/** Removes the cache files of `root` changed within [from, to] (ms); returns their names. */
export async function dropCachesChangedDuring(root: string, from: number, to: number): Promise<string[]> {
  const dir = path.join(root, CACHE_DIR);
  // Never through a link: waves' own folders planted as links are refused elsewhere, and not followed here.
  const folder = await lstat(dir).catch(() => null);
  if (folder === null || !folder.isDirectory()) return [];
  const removed: string[] = [];
  for (const name of (await readdir(dir).catch(() => [] as string[])).sort()) {
    const info = await lstat(path.join(dir, name)).catch(() => null);
    if (info === null || info.isDirectory() || info.ctimeMs < from || info.ctimeMs > to) continue;
    await rm(path.join(dir, name), { force: true }).catch(() => undefined);
    removed.push(name);
  }
  return removed;
}
