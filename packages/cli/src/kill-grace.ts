/**
 * The grace between SIGTERM and SIGKILL when waves stops a process tree: 5 s, or
 * `WAVES_KILL_GRACE_MS` from the environment (the tests shorten it). Read here, once per command,
 * and handed to the library; supervisors inherit it from the dispatch that starts them.
 */
import type { CliIo } from './io.js';

export function killGraceMs(env: CliIo['env']): number | undefined {
  const text = env.WAVES_KILL_GRACE_MS;
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}
