/** `waves __run RECORD`: the supervisor of one agent run (started by waves dispatch, not by people). */
import path from 'node:path';
import { holdTokens, superviseRun } from '@waves/dispatch';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { killGraceMs } from '../kill-grace.js';

export async function runSupervisor(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length !== 1) throw new UsageError('__run: expected one run record');
  // The tokens come from the dispatch through standard input (JSON), never in the environment an
  // agent could read from /proc/<supervisor>/environ.
  if (!process.stdin.isTTY) {
    const text = (await io.readStdin()).trim();
    if (text !== '') {
      try {
        holdTokens(JSON.parse(text) as Record<string, unknown>);
      } catch {
        throw new UsageError('__run: standard input is not the JSON of the tokens');
      }
    }
  }
  const record = await superviseRun(path.resolve(io.cwd, argv[0]!), { now: () => io.now(), env: io.env, graceMs: killGraceMs(io.env) });
  return record.status === 'succeeded' ? 0 : 1;
}
