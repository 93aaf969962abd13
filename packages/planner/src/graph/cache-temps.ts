/**
 * Adapter: the temporary files the caches under `.waves/cache/` are written through
 * (`<cache>.json.<pid>.tmp`, renamed over the cache when complete). A writer killed mid-write
 * leaves one behind, and no later writer (another pid) would ever take it: each write sweeps
 * those of writers that are gone.
 */
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const TEMP = /^[\w.-]+\.json\.(\d{1,10})\.tmp$/;
/** A temporary file this old is a leftover whatever its pid says (pids are reused). */
const STALE_MS = 24 * 60 * 60 * 1000;
/** Younger than this, it may be a live writer's on another machine sharing the folder: left alone. */
const FRESH_MS = 60 * 1000;

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the leftover temporary files of `dir` (regular files only; never follows a link). */
export function sweepCacheTemps(dir: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = TEMP.exec(name);
    if (!match) continue;
    try {
      const info = lstatSync(path.join(dir, name));
      if (!info.isFile()) continue;
      const age = now - info.mtimeMs;
      if (age > STALE_MS || (age > FRESH_MS && !alive(Number(match[1])))) rmSync(path.join(dir, name), { force: true });
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}
