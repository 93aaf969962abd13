/**
 * `waves` — the command line. Parses the command, runs it, and turns errors into exit codes in
 * one place (`exitCodeFor`).
 */
import { createRequire } from 'node:module';
import { runGraph } from './commands/graph.js';
import { runPlan } from './commands/plan.js';
import { exitCodeFor, formatError, UsageError } from './errors.js';
import { processIo, type CliIo } from './io.js';
import { nearest } from './args.js';

const require = createRequire(import.meta.url);
const VERSION = (require('../package.json') as { version: string }).version;

type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

const COMMANDS: Record<string, { run: Command; summary: string }> = {
  plan: { run: runPlan, summary: 'Plan the top issues of the backlog into conflict-free waves' },
  graph: { run: runGraph, summary: 'Report on the import graph: packages, hubs, barrels, unresolved imports' },
};

export const MAIN_HELP = `waves ${VERSION} — plan and dispatch waves of parallel coding-agent work

Usage: waves <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}

Run 'waves <command> --help' for a command's options.
Exit codes: 0 ok, 1 failure, 2 bad usage or input.
`;

export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const debug = argv.includes('--debug');
  try {
    const [name, ...rest] = argv;
    if (name === undefined) {
      io.stderr(MAIN_HELP);
      return 2;
    }
    if (name === '--help' || name === '-h' || name === 'help') {
      io.stdout(MAIN_HELP);
      return 0;
    }
    if (name === '--version' || name === '-v') {
      io.stdout(`${VERSION}\n`);
      return 0;
    }
    const command = COMMANDS[name];
    if (!command) {
      const hint = nearest(name, Object.keys(COMMANDS));
      throw new UsageError(`unknown command ${JSON.stringify(name)}${hint ? ` (did you mean ${hint}?)` : ''}; see waves --help`);
    }
    return await command.run(rest, io);
  } catch (error) {
    io.stderr(formatError(error, debug));
    return exitCodeFor(error);
  }
}

export { renderPlanTable } from './render/plan-table.js';
export { renderGraphDot, renderGraphMermaid, renderGraphTable } from './render/graph-report.js';
export { safeText } from './render/safe-text.js';
export type { CliIo } from './io.js';
