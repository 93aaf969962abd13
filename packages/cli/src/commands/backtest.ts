/**
 * `waves backtest`: replay a range of the repository's own history as a backlog, plan it against
 * the repository as it was before the range, and judge the plan by what the commits touched.
 * The CLI reads (git history, a temporary worktree of the base, the config, a truth graph) and
 * renders; the backtest itself is the planner's `runBacktest`.
 */
import path from 'node:path';
import {
  BACKTEST_GRADES,
  BacktestReportSchema,
  filesToRead,
  loadRepo,
  parseJsonText,
  runBacktest,
  truthEdgesFromJson,
  type BacktestGrade,
  type RepoIndex,
  type TruthEdges,
} from '@waves/planner';
import { enumFlag, intFlag, parseCommandArgs, renderFlags, stringFlag, type FlagSpecs } from '../args.js';
import { loadConfig, planOptionsFromConfig } from '../config/load-config.js';
import { checkGitTrust } from '@waves/dispatch';
import { InterruptedError, UsageError } from '../errors.js';
import { readUserFile } from '../read-user-file.js';
import type { CliIo } from '../io.js';
import { renderBacktestMarkdown, renderBacktestTable } from '../render/backtest-report.js';
import { withBaseWorktree } from '../sources/base-worktree.js';
import { readHistory, type HistoryRange } from '../sources/git-history.js';
import { rootFlag } from '../root-flag.js';
import { applyInferenceFlags, INFERENCE_FLAGS, warnSkipped } from './plan-input.js';

const FORMATS = ['table', 'json', 'markdown'] as const;
const DEFAULT_LAST = 100;

export const BACKTEST_FLAGS: FlagSpecs = {
  root: { type: 'string', value: 'DIR', description: 'The git repository whose history is replayed (its top)', default: 'the current directory' },
  last: { type: 'string', value: 'N', description: 'Replay the N first-parent commits up to --until', default: String(DEFAULT_LAST) },
  since: { type: 'string', value: 'REF', description: 'Replay the first-parent commits after REF up to --until (instead of --last)' },
  until: { type: 'string', value: 'REF', description: 'The newest commit replayed', default: 'HEAD' },
  grade: { type: 'string', value: 'files|dirs|title', description: 'What each issue says: every file, their directories only, or the subject alone', default: 'files' },
  'wave-size': { type: 'string', value: 'N', description: 'Most issues in one wave (the reference uses the same)', default: "the config's defaults.waveSize, else 4" },
  'max-files': { type: 'string', value: 'N', description: 'Commits changing more files than this (docs, markdown, lockfiles, ESLint suppressions aside) are left out', default: '8' },
  config: { type: 'string', value: 'FILE', description: 'Config file whose rules are judged', default: 'waves.config.json at the root, if any' },
  'truth-graph': {
    type: 'string',
    value: 'FILE',
    description: 'Import edges of the truth from dependency-cruiser --output-type json, or waves graph --json --edges (made at the base)',
    default: "waves' own graph at the base",
  },
  ...INFERENCE_FLAGS,
  format: { type: 'string', value: 'table|json|markdown', description: 'Output: tables, JSON (waves schema backtest), or markdown for a pull request', default: 'table' },
  json: { type: 'boolean', description: 'Same as --format json' },
  'no-cache': { type: 'boolean', description: 'Neither read nor write the import-graph cache' },
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export const BACKTEST_HELP = `Usage: waves backtest [--root DIR] [--last N | --since REF] [--until REF] [--grade files|dirs|title]
                      [--wave-size N] [--max-files N] [--config FILE] [--truth-graph FILE] [--format table|json|markdown]
                      [--inference off|suggest|plan] [--inference-threshold X]

Measures how good the plans are on the repository's own history. The first-parent commits of a
range become a backlog — one issue per commit that changes 1 to --max-files files once docs,
markdown and tool-written files (lockfiles, eslint-suppressions.json) are set aside, at least one
of them code and not all of them tests
(merges are skipped); its number is the (#N) of its subject, its title the subject, its rank
its place in history. The backlog is planned with the current config against the repository as
it was at the base (the parent of the oldest commit), checked out in a temporary worktree under
.waves/backtest/ and removed afterwards, every issue planned and every wave kept. The plan is
then judged by what the commits really touched:

  Truth        two commits truly conflict when they touch the same path, when one touches a path
               inside a directory the other creates, or when, at the base, a file one touches
               imports a file the other touches (--truth-graph: another tool's edges).
  Violations   pairs of one wave that truly conflict: what two agents would have collided on.
  Waves        against a perfect-knowledge reference: the issues the plan dispatched, first fit
               in history order over the true conflicts, same wave size.
  Dispatched   the share of issues the plan put in a wave (not subdivide, triage, deferred).
  Rules        for each rule that keeps issues apart (root files, serial config glob, hub,
               import at depth k, path, dependency, subdivide, triage): the issues or pairs it
               touched, the true conflicts among them, the waves it cost (the plan re-partitioned
               without it) and the true conflicts it alone prevented.
  Inference    the plan's candidates judged file by file: Acc@1 and Acc@5, any true file (or
               every one) among the top 1 or 5, beside a plain BM25 match of the issue text
               against file paths; with --inference plan, the inferred fences' recall.
  Live fences  each wave replayed with every run writing its commit's files in turn, a write
               outside its fence decided by the lease rule (granted, refused, needs a person),
               and the collisions left, beside the plan's own violations.

--grade says what each issue tells the planner: every file, marked edit, create or delete
(files), the directories they lie in (dirs), or the subject alone (title) — how a team measures
what writing better issues is worth. Nothing is read from the work tree but the config, so
uncommitted changes do not matter. The same repository, range and config give the same report.

Options:
${renderFlags(BACKTEST_FLAGS)}

Examples:
  waves backtest --last 300
  waves backtest --since v2.0.0 --grade dirs --format markdown > backtest.md
  waves backtest --config tuned.json --json | jq '.summary'
  base=$(waves backtest --last 300 --json | jq -r .repo.base)     # the commit planned against
  git worktree add /tmp/base "$base" && (cd /tmp/base && npx depcruise src --output-type json) > dc.json
  waves backtest --last 300 --truth-graph dc.json                 # judged by dependency-cruiser's edges

Exit codes: 0 reported, 2 bad flag, range (not a commit, --since not an ancestor, empty), shallow
history, dirty base, config or root (not the top of a git repository), 1 failure, 130 interrupted.
`;

/** The largest truth graph read: dependency-cruiser's JSON of a large monorepo is tens of megabytes. */
const MAX_TRUTH_GRAPH_BYTES = 256 * 1024 * 1024;

async function readTruthGraph(file: string, cwd: string): Promise<TruthEdges & { file: string }> {
  // A device or a huge file is refused, never read to the end (read-user-file.ts).
  const read = await readUserFile(path.resolve(cwd, file), MAX_TRUTH_GRAPH_BYTES);
  if (!read.ok) throw new UsageError(`--truth-graph ${file}: ${read.reason === 'no such file' ? 'cannot read it (no such file)' : read.reason}`);
  const text = read.text;
  const json = parseJsonText(text);
  if (!json.ok) throw new UsageError(`--truth-graph ${file}: not valid JSON (${json.message})`);
  const edges = truthEdgesFromJson(json.value);
  if (!edges.ok) throw new UsageError(`--truth-graph ${file}: ${edges.message}`);
  return { ...edges.value, file };
}

export async function runBacktestCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('backtest', BACKTEST_FLAGS, argv);
  if (values.help) {
    io.stdout(BACKTEST_HELP);
    return 0;
  }
  // Flags first: exit 2 before anything is read.
  const flagFormat = enumFlag(values, 'format', FORMATS);
  if (values.json && flagFormat !== undefined && flagFormat !== 'json') throw new UsageError(`--json and --format ${flagFormat} ask for two outputs; use one`);
  const format = values.json ? 'json' : (flagFormat ?? 'table');
  const grade: BacktestGrade = enumFlag(values, 'grade', BACKTEST_GRADES) ?? 'files';
  const last = intFlag(values, 'last', 1);
  const since = stringFlag(values, 'since');
  if (last !== undefined && since !== undefined) throw new UsageError('--last and --since both choose where the range starts; use one');
  const until = stringFlag(values, 'until') ?? 'HEAD';
  const waveSize = intFlag(values, 'wave-size', 1);
  const maxFiles = intFlag(values, 'max-files', 1) ?? 8;
  const { root, rootArg } = await rootFlag(values, io);
  const config = await loadConfig(root, stringFlag(values, 'config'), io.cwd);
  const options = planOptionsFromConfig(config.config);
  // Before any git command: git would run a program an agent planted in its config.
  await checkGitTrust(root, io.now());
  if (waveSize !== undefined) options.waveSize = waveSize;
  applyInferenceFlags(values, options);
  const truthFile = stringFlag(values, 'truth-graph');
  const truthEdges = truthFile !== undefined ? await readTruthGraph(truthFile, io.cwd) : null;

  // Ctrl-C: stop at the next step, remove the worktree (the finally blocks), exit 130.
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
  };
  const checkpoint = () => {
    if (interrupted) throw new InterruptedError('backtest interrupted; its temporary worktree is removed');
  };
  const progress = (message: string) => {
    if (io.stderrIsTTY) io.stderr(`waves: ${message}\n`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let repo: RepoIndex;
  let history: HistoryRange;
  try {
    progress('reading the history');
    history = await readHistory({ rootArg: rootArg ?? '.', root, until, ...(since !== undefined ? { since } : { last: last ?? DEFAULT_LAST }) });
    checkpoint();
    progress(`checking out the base ${history.base.slice(0, 12)} in a temporary worktree`);
    const cacheAt = { root, slot: 'backtest' };
    const useCache = !values['no-cache'];
    repo = await withBaseWorktree(
      root,
      history.base,
      async (dir) => {
        checkpoint();
        progress('reading its import graph');
        const index = await loadRepo(dir, { displayRoot: rootArg ?? '.', cache: useCache, cacheAt });
        checkpoint();
        // Scope inference reads the files the symbols cache lacks: only while the checkout is there.
        const { readSymbols, ...rest } = index;
        return readSymbols ? { ...rest, symbols: readSymbols() } : index;
      },
      // Only what the graph reads is checked out: the manifests, and the sources the cache lacks.
      (files) => filesToRead(files, useCache ? cacheAt : false),
    ).catch((error: unknown) => {
      // A Ctrl-C reaches git too: whatever failed then, the cause is the interruption.
      checkpoint();
      throw error;
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  warnSkipped(repo, io);
  if (history.renamesUnknown) io.stderr(`waves: ${history.renamesUnknown}\n`);
  if (history.unreadableNames) io.stderr(`waves: ${history.unreadableNames}\n`);
  progress(`planning ${history.commits.length} commit(s)`);
  const report = runBacktest({
    commits: history.commits,
    repo: { ...repo, head: history.base },
    range: { base: history.base, until: history.until, since: history.since },
    grade,
    maxFiles,
    options,
    truthEdges,
  });
  if (format === 'json') io.stdout(`${JSON.stringify(BacktestReportSchema.parse(report), null, 2)}\n`);
  else if (format === 'markdown') io.stdout(renderBacktestMarkdown(report));
  else io.stdout(renderBacktestTable(report));
  return 0;
}
