/**
 * Global setup: one waves state directory for the whole run, in a temporary folder, so that no
 * test seals run records in the real `~/.local/state/waves`. Worker processes and the CLI they
 * start inherit it; the CLI helpers pass it on explicitly too.
 *
 * The temporary folder of the whole run (TMPDIR, which `os.tmpdir()` reads) is a private one under
 * the home folder, not /tmp: harvest verifies only in a tree none of whose parent folders others
 * can write (npm and Node look for `node_modules` in each), and /tmp is writable by anyone.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const base = path.join(homedir(), '.cache', 'waves-tests');
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const tmp = mkdtempSync(path.join(base, 'run-'));
  process.env.TMPDIR = tmp;
  const dir = mkdtempSync(path.join(tmp, 'waves-state-'));
  process.env.WAVES_STATE_DIR = dir;
  return () => rmSync(tmp, { recursive: true, force: true });
}
