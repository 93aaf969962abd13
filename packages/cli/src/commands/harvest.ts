/**
 * `waves harvest`: witnesses every settled run of a dispatched wave — its diff, a fence audit,
 * the verification commands re-run by waves — optionally reverts out-of-fence files and commits
 * the clean runs by explicit path with `(#N)`; then reports how well the plan predicted what the
 * agents touched. `--history` aggregates that over every harvested run.
 */
import { checkLogFloor } from '../config/agent-trust.js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  CACHE_DIR,
  DEFAULT_VERIFY_TIMEOUT,
  dropCachesChangedDuring,
  harvestRun,
  checkGitTrust,
  HarvestBusyError,
  packagesOfPaths,
  readRecords,
  readSeals,
  RUNS_DIR,
  type HarvestOutcome,
  type RunRecord,
} from '@waves/dispatch';
import { buildRepoGraph, gitInputProblem, listRepoFiles, readWorkspace, sumAccuracy } from '@waves/planner';
import { durationOf, intFlag, parseCommandArgs, renderFlags, stringFlag, type FlagSpecs } from '../args.js';
import { loadConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { killGraceMs } from '../kill-grace.js';
import type { CliIo } from '../io.js';
import { accuracyHints, harvestJson, historyJson, renderHarvest, renderHistory } from '../render/harvest-report.js';
import { safeText } from '../render/safe-text.js';
import { rootFlag } from '../root-flag.js';

export const EXIT_NEEDS_PERSON = 4;

export const HARVEST_FLAGS: FlagSpecs = {
  wave: { type: 'string', value: 'K', description: 'Harvest the last dispatch of wave K', default: 'the last dispatched wave' },
  run: { type: 'string', value: 'ID', description: 'Harvest one run (resolve-<N>-<stamp>)' },
  commit: { type: 'boolean', description: 'Commit each clean run: exactly its in-fence paths, on its branch, citing (#N)' },
  'revert-out-of-fence': { type: 'boolean', description: 'Restore the files changed outside the fence (nothing else) first' },
  type: { type: 'string', value: 'TYPE', description: 'Commit type for every commit', default: 'fix for a bug label, else feat' },
  signoff: { type: 'boolean', description: 'Add a Signed-off-by trailer to each commit (DCO)' },
  'verify-timeout': { type: 'string', value: 'DURATION', description: 'Stop a verification command after this', default: 'verifyTimeout of the config at dispatch, else 10m' },
  history: { type: 'boolean', description: 'Prediction accuracy over every harvested run (no harvesting)' },
  root: { type: 'string', value: 'DIR', description: 'Repository whose runs to harvest', default: 'the current directory' },
  config: { type: 'string', value: 'FILE', description: 'Config file', default: 'waves.config.json at the root, if any' },
  json: { type: 'boolean', description: 'Print the report as JSON' },
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export const HARVEST_HELP = `Usage: waves harvest [--wave K | --run ID] [--revert-out-of-fence] [--commit [--type T] [--signoff]] [--json]
       waves harvest --history [--json]

Witnesses what the agents of a dispatched wave did, trusting nothing they say. For every run
that has ended (but first, before any git runs: git config that names a program — a filter,
a signing program — added or changed since you trusted it stops the harvest with exit 2; see
waves trust --help):
  - diff: the files it changed, added, deleted or renamed — committed or not, untracked too
    (hidden only by the tree's own .gitignore files, not .git/info/exclude) — in its worktree
    since the commit it started from (without worktrees: in the shared work tree, leaving out
    what was uncommitted before the wave and what another run's fence covers);
  - fence audit: each changed file is inside the issue's planned paths (a directory covers all
    under it; a package.json brings its lockfile along) or outside; root files (manifests, lockfiles, CI, base tsconfig, files at the top)
    changed by an issue that does not run alone are flagged; a control file (manifests, rc and env
    files, hooks, agent settings, CI and tool configs) changed needs a person unless the issue
    named that file itself — a folder of the fence does not; --revert-out-of-fence restores the
    out-of-fence files of a worktree as they were at the start (the agent's versions kept in
    .dispatch-runs/reverted-<N>-<stamp>/) and touches nothing else, never through a symlink: a
    link standing for a file or a folder is backed up as a link and removed, and every act goes
    through folders held open (Linux /proc/self/fd), so a folder swapped for a link meanwhile is
    never followed; nothing is reverted or committed while a process of the run still runs;
  - links: a changed path that is a symlink (in the tree or the agent's commits) needs a person
    and is never committed;
  - .git: any change during the run to hooks/, config, info/ (or the worktree's own config and
    pointers) needs a person; after a config change no git command runs there at all;
  - nested repositories: never entered; a gitlink or a .git the run made needs a person;
  - refs: a branch, tag, replace ref or note created, moved or deleted during the run (but
    waves' own commits), or HEAD switched, needs a person (old → new); so does another run's
    waves/ branch moved or deleted, unless that run ran meanwhile (its harvest sees it);
  - verify: the "verify" commands of waves.config.json as sealed at dispatch ({paths} and
    {packages} of the issue),
    run by waves in a clean tree of its own (the run's start commit plus the in-fence files it
    is about to commit, in waves' state folder, set up as sealed at dispatch), each with a timeout, output to
    .dispatch-runs/verify-<N>-<stamp>.log (GitHub tokens left out of their environment and
    redacted from the log); whatever a command leaves running is stopped (its process group:
    SIGTERM, 5 s, SIGKILL) before the next; the first that does not pass stops the rest; the
    audit is re-run afterwards (a build, or a session still writing, may have changed the tree).
    Verification runs the agent's in-fence code as you, outside any sandbox; it does not run at
    all while out-of-fence changes remain (revert them with --revert-out-of-fence);
  - tests: a deleted existing test needs a person, an edited one is noted;
  - commit (--commit): when the audit is clean, verification passed and the agent succeeded,
    commits exactly the in-fence blobs verification checked (read before it ran; a file changed
    after verification needs a person), built with git commit-tree from a temporary index (never
    git add -A) and put on the issue's branch with git update-ref from its last commit, with the message
    "<type>(<lane>): <title> (#N)" and a "Waves-Run: <run id>" trailer, with git hooks off
    (core.hooksPath=/dev/null); a commit that holds other paths than meant (git diff-tree) is
    undone and needs a person. Never pushes, never touches another branch; a run already
    committed is not committed again (a commit of the run with its trailer and the verified tree,
    left by a killed harvest, is adopted), and needs a person when its branch is no longer at
    the sealed commit (moved or deleted by another run's agent).
What harvest trusts (fence, start, .git snapshot, dispatch, worktree, status) comes from the
sealed copy of each run record, kept outside the repository in waves' state directory
($WAVES_STATE_DIR, else $XDG_STATE_HOME/waves, else ~/.local/state/waves); a record whose copy
in .dispatch-runs/ was rewritten, or that has no seal, needs a person and nothing is committed.
What waves saw is kept in the run record ("witness"). Then the prediction accuracy: per issue and
for the wave, the planned leaves against the files changed — precision (leaves the agent
touched), recall (changed files a leaf covered), by source of the scope (title, body, label,
config) and the recall had leaves been directories or packages.

Options:
${renderFlags(HARVEST_FLAGS)}

Examples:
  waves harvest                              # audit and verify the last dispatched wave
  waves harvest --revert-out-of-fence --commit
  waves harvest --run resolve-12-20261130T101500000Z --commit --type chore
  waves harvest --history                    # are issues naming the right files?

Exit codes: 0 every run of the wave witnessed clean, 4 some need a person (listed with why),
1 failure (a run failed: git or the file system could not answer), 2 bad flag, input or config,
130 interrupted.
`;

type Values = ReturnType<typeof parseCommandArgs>['values'];

/** The runs to harvest: one run, the last dispatch of a wave, or the last dispatch. */
function pickRuns(records: readonly RunRecord[], values: Values): { runs: RunRecord[]; dispatch: RunRecord[]; label: string } {
  const groupOf = (r: RunRecord) => r.dispatchId ?? `wave-${r.wave}`;
  const runId = stringFlag(values, 'run');
  if (runId !== undefined) {
    const run = records.find((r) => r.id === runId);
    if (!run) throw new UsageError(`--run ${safeText(runId, 120)}: no such run under ${RUNS_DIR}/ (waves status lists them)`);
    return { runs: [run], dispatch: records.filter((r) => groupOf(r) === groupOf(run)), label: `run ${run.id}` };
  }
  const wave = intFlag(values, 'wave', 1);
  const candidates = wave === undefined ? records : records.filter((r) => r.wave === wave);
  if (candidates.length === 0) {
    throw new UsageError(wave === undefined ? `nothing to harvest: no run under ${RUNS_DIR}/ (waves dispatch starts them)` : `--wave ${wave}: no run of wave ${wave} under ${RUNS_DIR}/`);
  }
  const last = [...candidates].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt) || a.id.localeCompare(b.id)).at(-1)!;
  const dispatch = records.filter((r) => groupOf(r) === groupOf(last));
  return { runs: dispatch.filter((r) => r.wave === last.wave), dispatch, label: `wave ${last.wave}` };
}

export async function runHarvest(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('harvest', HARVEST_FLAGS, argv);
  if (values.help) {
    io.stdout(HARVEST_HELP);
    return 0;
  }
  if (values.run !== undefined && values.wave !== undefined) throw new UsageError('--run and --wave pick the runs twice; use one');
  if (values.history && (values.commit || values['revert-out-of-fence'] || values.run !== undefined || values.wave !== undefined)) {
    throw new UsageError('--history only reports: it takes no --wave, --run, --commit or --revert-out-of-fence');
  }
  const type = stringFlag(values, 'type');
  if (type !== undefined && !/^[a-z][\w-]*$/i.test(type)) throw new UsageError(`--type: expected a word such as fix, feat or chore, got ${JSON.stringify(type)}`);
  if (type !== undefined && !values.commit) throw new UsageError('--type names the commit type: it needs --commit');
  if (values.signoff && !values.commit) throw new UsageError('--signoff signs the commits: it needs --commit');
  // A flag that is wrong whatever the runs: exit 2 before anything is read.
  const verifyTimeoutFlag = stringFlag(values, 'verify-timeout');
  if (verifyTimeoutFlag !== undefined) durationOf(verifyTimeoutFlag, { flag: 'verify-timeout' });
  const { root } = await rootFlag(values, io);
  const runsDir = path.join(root, RUNS_DIR);
  const { records: listed, unreadable } = await readRecords(runsDir);
  // Which runs there are, which make a wave and which fences claim what come from the seals: the
  // copies in the repository are the agents' to rewrite, garble or delete. A record without a
  // seal is still listed (harvesting it says why it needs a person) but claims nothing.
  const seals = await readSeals(runsDir);
  for (const file of unreadable) if (!seals.has(file)) io.stderr(`waves: ${path.relative(root, file)} is not a run record, skipped\n`);
  const sealed = new Set([...seals.values()].map((r) => r.id));
  const records = [...seals.values(), ...listed.filter((l) => !seals.has(l.file)).map((l) => l.record)];
  if (values.history) {
    const witnessed = records.filter((r) => r.witness !== undefined).sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
    // Without a worktree a run's misses cannot be told from another's: only attributed runs count.
    const accuracy = sumAccuracy(witnessed.filter((r) => r.witness!.attributed).map((r) => r.witness!.accuracy));
    const hints = accuracyHints(accuracy);
    if (values.json) io.stdout(`${JSON.stringify(historyJson(witnessed, accuracy, hints), null, 2)}\n`);
    else io.stdout(renderHistory(witnessed, accuracy, hints));
    return 0;
  }

  const loadedConfig = await loadConfig(root, stringFlag(values, 'config'), io.cwd);
  const { config, file: configFile } = loadedConfig;
  // The verification output is capped by logs.maxBytes too: not below the floor from the repository's config.
  checkLogFloor(loadedConfig);
  // Before any git command — the planner's listing of the root, each run's diff, a commit: git
  // would run a program an agent planted in its config (a filter, a signing program).
  const { commitSigning } = await checkGitTrust(root, io.now());
  // The person's flag wins over the timeout sealed at dispatch; the config's only counts for older records.
  const verifyTimeoutMs =
    verifyTimeoutFlag !== undefined
      ? durationOf(verifyTimeoutFlag, { flag: 'verify-timeout' })
      : durationOf(config.verifyTimeout ?? DEFAULT_VERIFY_TIMEOUT, { configKey: 'verifyTimeout' });
  const { runs, dispatch, label } = pickRuns(records, values);
  // The repository as the planner sees it (graph from the cache when unchanged), for {packages} and the accuracy.
  // A FIFO where git's listing of the shared tree opens a file (an agent's .gitignore) would block
  // it: the listing is left empty, and each run in the shared tree needs a person, saying why.
  const blocked = await gitInputProblem(root, [], { deep: true });
  // Before the graph is read from them: the caches changed while a run ran (cache-written.ts).
  for (const run of runs) {
    const from = Date.parse(run.startedAt);
    const to = run.endedAt === null ? Number.NaN : Date.parse(run.endedAt);
    if (!sealed.has(run.id) || !Number.isFinite(from) || !Number.isFinite(to)) continue;
    const dropped = await dropCachesChangedDuring(root, from, to);
    if (dropped.length > 0) io.stderr(`waves: ${CACHE_DIR}/ changed while ${run.id} (#${run.issue.number}) ran (${dropped.join(', ')}): no waves process writes it then, an agent can; removed, rebuilt now\n`);
  }
  const listing = blocked === null ? await listRepoFiles(root) : { files: [], head: null, git: true, blobIds: new Map<string, string>() };
  const { members } = await readWorkspace(root, listing.files);
  const graph = await buildRepoGraph(root, { files: listing.files, blobIds: listing.blobIds, members, words: false });
  const packages = members.filter((m) => m.dir !== '');
  const neighbours = (file: string): string[] => (graph.hasNode(file) ? graph.neighbors(file) : []);
  const packagesOf = (paths: readonly string[]) => packagesOfPaths(packages, paths);

  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const outcomes: HarvestOutcome[] = [];
  try {
    for (const run of [...runs].sort((a, b) => a.issue.number - b.issue.number)) {
      if (controller.signal.aborted) break;
      const file = path.join(runsDir, `${run.id}.json`);
      io.stderr(`waves: witnessing #${run.issue.number} ${safeText(run.issue.title, 50)} (${run.id})\n`);
      try {
        outcomes.push(
          await harvestRun(file, {
            afterLock: pauseAfterLock(io.env),
            root,
            runsDir,
            commit: Boolean(values.commit),
            revertOutOfFence: Boolean(values['revert-out-of-fence']),
            commitType: type ?? null,
            signoff: Boolean(values.signoff),
            commitSigning,
            verify: config.verify ?? [],
            verifyTimeoutMs,
            verifyTimeoutFromFlag: verifyTimeoutFlag !== undefined,
            verifyConfig: configFile,
            logMaxBytes: config.logs?.maxBytes ?? null,
            graceMs: killGraceMs(io.env),
            serialGlobs: config.serial ?? [],
            packagesOf,
            packageDirs: packages.map((p) => p.dir),
            neighbours,
            repo: { files: listing.files, members },
            siblings: dispatch.filter((r) => sealed.has(r.id)),
            now: () => io.now(),
            signal: controller.signal,
          }),
        );
      } catch (error) {
        if (error instanceof HarvestBusyError) {
          outcomes.push({ kind: 'pending', record: run, why: error.message });
          continue;
        }
        throw error;
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const accuracy = sumAccuracy(outcomes.flatMap((o) => (o.kind === 'witnessed' && o.witness.attributed ? [o.witness.accuracy] : [])));
  if (values.json) io.stdout(`${JSON.stringify(harvestJson(label, outcomes, accuracy), null, 2)}\n`);
  else io.stdout(renderHarvest(label, outcomes, accuracy, { root }));
  if (controller.signal.aborted) return 130;
  if (outcomes.some((o) => o.kind === 'failed')) return 1;
  return outcomes.every((o) => o.kind === 'witnessed' && o.witness.status === 'clean') && outcomes.length === runs.length ? 0 : EXIT_NEEDS_PERSON;
}

/**
 * For tests only: with WAVES_TEST_PAUSE_AFTER_LOCK=FILE, harvest writes FILE once it holds a
 * record's lock and before it writes the lock's holder, then waits forever (to be killed there).
 */
function pauseAfterLock(env: CliIo['env']): (() => Promise<void>) | undefined {
  const file = env.WAVES_TEST_PAUSE_AFTER_LOCK;
  if (!file) return undefined;
  return async () => {
    await writeFile(file, 'locked\n');
    await new Promise<never>(() => setInterval(() => undefined, 60_000));
  };
}
