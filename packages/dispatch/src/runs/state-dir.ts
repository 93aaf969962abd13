/**
 * waves' state directory, outside every repository: the seals of run records, the git trust, and
 * the sockets of live fences. Node built-ins only: the fence's thin client (fence-client.ts)
 * imports it, and must start in milliseconds.
 */
import { homedir } from 'node:os';
import path from 'node:path';

/** waves' state directory: `$WAVES_STATE_DIR`, else `$XDG_STATE_HOME/waves`, else `~/.local/state/waves`. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WAVES_STATE_DIR) return path.resolve(env.WAVES_STATE_DIR);
  // The XDG spec ignores a relative XDG_STATE_HOME.
  if (env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME)) return path.join(env.XDG_STATE_HOME, 'waves');
  return path.join(homedir(), '.local', 'state', 'waves');
}
