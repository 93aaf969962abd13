/**
 * `waves fence check`: asks a run's live fence about paths (fence-client.ts of dispatch holds the
 * protocol and the hook formats; the run's supervisor decides). Loads nothing else: an agent's hook
 * runs it before every edit.
 */
import { runFenceCheck } from '@waves/dispatch/fence-client';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';

export const FENCE_HELP = `Usage: waves fence check [--run ID] PATH…
       waves fence check [--run ID] --hook claude|opencode

Asks the live fence of a running agent run about paths outside its fence. Inside the fence: allowed,
but a control file only a folder of the fence holds is refused (only the file itself, as a leaf,
names it). Outside: the same lease rule as the planner's — no other run's live lease on the path, none within
the plan's contention depth of imports, no root file, control file or serial path — and if free,
the path is leased in the run's name and added to its fence (recorded in its sealed record); else
refused. Only the run's own processes may ask: the question carries WAVES_FENCE_TICKET, which waves
puts in the environment of that run's agent alone.

Options:
  --run ID            The run (resolve-<N>-<stamp>; default: WAVES_RUN of the environment; a hook
                      with neither refuses the edit)
  --hook claude       Read a Claude Code PreToolUse hook input on stdin, answer in its decision format
  --hook opencode     Read {"tool","args"} of opencode's tool.execute.before on stdin, answer {"allowed"}
  --json              Print each path's result as JSON

Exit codes: 0 allowed, 3 refused (one line per path: why, who holds it, the import chain),
2 bad usage, 1 no live fence to ask (the run has ended, or never started) or a question without
the run's key.
`;

export async function runFence(argv: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    (sub === undefined ? io.stderr : io.stdout)(FENCE_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'check') throw new UsageError(`waves fence: unknown subcommand ${JSON.stringify(sub)}; see waves fence --help`);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(FENCE_HELP);
    return 0;
  }
  return runFenceCheck(rest, { stdin: io.readStdin, stdout: io.stdout, stderr: io.stderr, env: io.env as NodeJS.ProcessEnv });
}
