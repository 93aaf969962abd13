/**
 * Global setup: one waves state directory for the whole run, in the temporary folder, so that no
 * test seals run records in the real `~/.local/state/waves`. Worker processes and the CLI they
 * start inherit it; the CLI helpers pass it on explicitly too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'waves-state-'));
  process.env.WAVES_STATE_DIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
