/**
 * `waves` — the command line. Parses the command, runs it, and turns errors into exit codes in
 * one place (`exitCodeFor`). Secrets from the environment never reach the output.
 */
import { createRequire } from 'node:module';
import { runCompare } from './commands/compare.js';
import { runDispatch } from './commands/dispatch.js';
import { runExplain } from './commands/explain.js';
import { runGraph } from './commands/graph.js';
import { runHarvest } from './commands/harvest.js';
import { runInit } from './commands/init.js';
import { runLease } from './commands/lease.js';
import { runPlan } from './commands/plan.js';
import { runSchema } from './commands/schema.js';
import { runStatus } from './commands/status.js';
import { runSupervisor } from './commands/supervise.js';
import { exitCodeFor, formatError, UsageError } from './errors.js';
import { processIo, type CliIo } from './io.js';
import { nearest } from './args.js';

const require = createRequire(import.meta.url);
const VERSION = (require('../package.json') as { version: string }).version;

type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

const COMMANDS: Record<string, { run: Command; summary: string }> = {
  plan: { run: runPlan, summary: 'Plan the top issues of the backlog into conflict-free waves' },
  explain: { run: runExplain, summary: 'Explain where one issue landed in the plan, and why' },
  dispatch: { run: runDispatch, summary: 'Run one wave: an agent per issue under leases (--dry-run shows the commands)' },
  graph: { run: runGraph, summary: 'Report on the import graph: packages, hubs, barrels, unresolved imports' },
  lease: { run: runLease, summary: 'Acquire, release, renew or list exclusive leases on lanes and paths' },
  status: { run: runStatus, summary: 'List agent runs: status, duration, log; settle stale ones (--reap)' },
  harvest: { run: runHarvest, summary: 'Witness a wave: diff, fence audit, verification, commit with (#N); prediction accuracy' },
  compare: { run: runCompare, summary: 'Burndown against a saved plan: closed, progress, remaining waves, new issues' },
  schema: { run: runSchema, summary: 'Print the JSON Schema of the plan, the config file or the graph report' },
  init: { run: runInit, summary: 'Write a starting waves.config.json (with its JSON Schema)' },
};

export const MAIN_HELP = `waves ${VERSION} — plan and dispatch waves of parallel coding-agent work

Usage: waves <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}

Run 'waves <command> --help' for a command's options.
Exit codes: 0 ok, 1 failure, 2 bad usage, input or config (dispatch, harvest and lease add theirs: see their --help).
`;

/** Values that must never be printed: tokens from the environment. */
function secretsOf(env: CliIo['env']): string[] {
  return ['GITHUB_TOKEN', 'GH_TOKEN'].map((name) => env[name]).filter((v): v is string => typeof v === 'string' && v.length >= 4);
}

function redacting(io: CliIo): CliIo {
  const secrets = secretsOf(io.env);
  if (secrets.length === 0) return io;
  const scrub = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('[REDACTED]'), text);
  return { ...io, stdout: (text) => io.stdout(scrub(text)), stderr: (text) => io.stderr(scrub(text)) };
}

export async function main(argv: readonly string[], rawIo: CliIo = processIo()): Promise<number> {
  const io = redacting(rawIo);
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
    // The supervisor of one agent run: internal, started by waves dispatch.
    if (name === '__run') return await runSupervisor(rest, io);
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
export { renderPlanMarkdown, markdownCell } from './render/plan-markdown.js';
export { renderPlanMermaid, mermaidText } from './render/plan-mermaid.js';
export { renderExplanation } from './render/explanation.js';
export { renderGraphDot, renderGraphMermaid, renderGraphTable } from './render/graph-report.js';
export { safeText } from './render/safe-text.js';
export { ConfigSchema } from './config/config-schema.js';
export type { WavesConfig } from './config/config-schema.js';
export { loadConfig, planOptionsFromConfig } from './config/load-config.js';
export { repoFromRemote } from './sources/github.js';
export type { CliIo } from './io.js';
