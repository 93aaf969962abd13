/**
 * `waves graph`: build (or reuse) the import graph of a repository and report on it.
 */
import { GraphReportSchema, loadRepo, summarizeGraph } from '@waves/planner';
import { enumFlag, intFlag, parseCommandArgs, renderFlags, type FlagSpecs } from '../args.js';
import { checkGitTrust } from '@waves/dispatch';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { renderGraphDot, renderGraphMermaid, renderGraphTable } from '../render/graph-report.js';
import { warnSkipped } from './plan-input.js';
import { rootFlag } from '../root-flag.js';

export const GRAPH_FLAGS: FlagSpecs = {
  root: { type: 'string', value: 'DIR', description: 'Repository to analyse', default: 'the current directory' },
  json: { type: 'boolean', description: 'Print the report as JSON' },
  edges: { type: 'boolean', description: 'With --json: add every edge as {"from", "to", "kind"}' },
  format: { type: 'string', value: 'table|json|mermaid|dot', description: 'Output format; mermaid and dot draw the packages', default: 'table' },
  hubs: { type: 'string', value: 'N', description: 'Most hubs to list', default: '20' },
  'no-cache': { type: 'boolean', description: 'Ignore and do not write the cache under .waves/cache/' },
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export const GRAPH_HELP = `Usage: waves graph [--root DIR] [options]

Builds the file-level import graph of a repository — every TypeScript/JavaScript source file,
every import with its kind (static, type, dynamic, require, reexport), resolved through tsconfig
paths and workspace packages — and reports its size, what did not resolve, the workspace packages
and their dependencies, the hubs (files more than a quarter of the repository depends on, with
their direct fan-in; issues touching them run alone only when the config's "hubs" says so) and
the barrels. The graph is cached under .waves/cache/, so a re-run is fast.

Options:
${renderFlags(GRAPH_FLAGS)}

Examples:
  waves graph
  waves graph --root ../big-monorepo --hubs 50
  waves graph --json --edges > graph.json
  waves graph --format mermaid > packages.mmd

Exit codes: 0 done, 2 bad flag or root, 1 failure.
`;

export async function runGraph(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('graph', GRAPH_FLAGS, argv);
  if (values.help) {
    io.stdout(GRAPH_HELP);
    return 0;
  }
  const format = enumFlag(values, 'format', ['table', 'json', 'mermaid', 'dot'] as const) ?? (values.json ? 'json' : 'table');
  if (values.json && format !== 'json') throw new UsageError(`--json and --format ${format} ask for two outputs; use one`);
  if (values.edges && format !== 'json') throw new UsageError('--edges needs --json');
  const topHubs = intFlag(values, 'hubs', 0) ?? 20;
  const { root, rootArg } = await rootFlag(values, io);
  // Before any git command: git would run a program an agent planted in its config.
  await checkGitTrust(root, io.now());
  const progress = io.stderrIsTTY
    ? (done: number, total: number) => io.stderr(`\rwaves: reading imports ${done}/${total}${done === total ? '\n' : ''}`)
    : undefined;
  // The graph report needs no history prior (scope inference's): not read.
  const repo = await loadRepo(root, { displayRoot: rootArg ?? '.', cache: !values['no-cache'], history: false, words: false, ...(progress ? { onProgress: progress } : {}) });
  warnSkipped(repo, io);
  const report = summarizeGraph(repo.graph, { root: repo.root, head: repo.head, packages: repo.packages, topHubs, edges: Boolean(values.edges) });
  if (format === 'json') io.stdout(`${JSON.stringify(GraphReportSchema.parse(report), null, 2)}\n`);
  else if (format === 'mermaid') io.stdout(renderGraphMermaid(report));
  else if (format === 'dot') io.stdout(renderGraphDot(report));
  else io.stdout(renderGraphTable(report));
  return 0;
}
