/**
 * `waves dispatch`: plans like `waves plan`, then runs one wave — one supervised agent per issue
 * under leases on its paths (see runWave). With `--dry-run` it only shows the exact command that
 * would start each agent — shell-quoted, so it can be pasted and runs exactly that argv — with
 * the tier, the model and the rule that chose it; nothing is started, written or leased.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentTemplate, AgentTemplateError, baseMovedDuringRuns, runBranchMovedDuringRuns, runSeals, worktreeReuseProblem, buildDispatch, shellQuote, configChangedDuringRuns, lockfileSetup, packagesOfPaths, resolveBase, workTreeOf, DEFAULT_PROMPT_TEMPLATE, DEFAULT_SETUP_TIMEOUT, DEFAULT_VERIFY_TIMEOUT, LeaseRemoteError, MAX_DURATION_MS, modelNameProblem, RUNS_DIR, runWave, tokensOf, type DispatchOptions, type RunEvent } from '@waves/dispatch';
import { analyzePlan, BUILTIN_SERIAL_GLOBS, ConfigError, readRegularFile, verifyPlan } from '@waves/planner';
import { durationOf, intFlag, parseCommandArgs, renderFlags, stringFlag, type FlagSpecs } from '../args.js';
import { checkLogFloor, checkPermissionWidening, checkTokenPassThrough } from '../config/agent-trust.js';
import { configPath } from '../config/config-paths.js';
import { UsageError } from '../errors.js';
import { killGraceMs } from '../kill-grace.js';
import type { CliIo } from '../io.js';
import { renderDispatch, dispatchJson } from '../render/dispatch-preview.js';
import { renderRuns } from '../render/runs-table.js';
import { safeText } from '../render/safe-text.js';
import { rootFlag } from '../root-flag.js';
import { loadPlanInput, SOURCE_FLAGS } from './plan-input.js';

export const DISPATCH_FLAGS: FlagSpecs = {
  'dry-run': { type: 'boolean', description: 'Show the commands; start, write and lease nothing' },
  concurrency: { type: 'string', value: 'N', description: 'Most agents running at once', default: 'the wave size' },
  timeout: { type: 'string', value: 'DURATION', description: 'Stop an agent still running after this (30m, 2h; at most 24.8 days)', default: 'none' },
  detach: { type: 'boolean', description: 'Return once every agent is started (waves status follows them)' },
  agent: { type: 'string', value: 'NAME', description: 'opencode, claude, codex, or an agent of the config', default: 'opencode' },
  model: { type: 'string', value: 'M', description: 'One model for every agent of the run (overrides routing)' },
  worktree: { type: 'boolean', description: 'One git worktree per issue, on branch waves/issue-N' },
  base: { type: 'string', value: 'REF', description: 'With --worktree: the commit the branches start from', default: 'HEAD' },
  wave: { type: 'string', value: 'K', description: 'The wave to dispatch', default: '1' },
  'all-waves': { type: 'boolean', description: 'Every planned wave' },
  json: { type: 'boolean', description: 'The plan with a `command` (argv) on each issue and `commands` per wave' },
  ...SOURCE_FLAGS,
};

export const DISPATCH_HELP = `Usage: waves dispatch [--dry-run] [--agent NAME] [--model M] [--worktree [--base REF]] [--wave K] [plan flags]

Plans the backlog as waves plan does and starts one coding agent per issue of a wave (the first
by default), under exclusive leases on each issue's paths:
  - an issue whose lease is refused (another orchestrator holds its scope) is skipped with a
    message, and the next candidate that fits the wave takes its place;
  - an issue that must run alone (a configured serial path, a hub) leases the whole repository;
    leases are renewed while the agent runs and released when it ends, however it ends;
  - --worktree gives each agent a git worktree on branch waves/issue-N (from --base, default HEAD:
    it must name a commit, else exit 2 before anything starts), set up before the agent starts:
    worktree.setup in the config (argv arrays; [] for none), by default the install the lockfile
    at the root asks for (pnpm install --frozen-lockfile --prefer-offline, npm ci --prefer-offline
    --no-audit --no-fund, yarn install --frozen-lockfile or --immutable), each command with its own
    deadline (worktree.setupTimeout, default 10m) and log (.dispatch-runs/resolve-<N>-<stamp>.setup.log),
    run like the agent (no shell, no token, stopped by waves stop, Ctrl-C and --timeout); a setup
    that fails settles the run failed, saying why, releases its leases and starts no agent;
    a later run of the same issue continues in the worktree an earlier one left, only while its
    .git still leads to this repository (else the issue is skipped, saying why, and no git runs there);
  - each agent runs with no shell and stdin closed, under a supervisor process of its own, in its
    own process group; its stdout and stderr go straight to .dispatch-runs/resolve-<N>-<stamp>.log
    (no cap, unless logs.maxBytes in the config), its pid to .pid, its run record to .json (status,
    exit code, times, leases), settled whatever the ending: succeeded, failed, timed_out, cancelled;
  - GITHUB_TOKEN, GH_TOKEN, GITHUB_ENTERPRISE_TOKEN and GH_ENTERPRISE_TOKEN are left out of an
    agent's environment unless agents.<name>.env names them in a config you name with --config
    (never the repository's own waves.config.json), and their values are redacted from its log;
    every agent carries WAVES_RUN=<run id>;
  - however a run ends (its own exit too), what is left of its processes — the whole process group,
    and on Linux any process carrying its WAVES_RUN or found by the supervisor's descendant tracker
    (children, their sessions and groups, writers of the agent's output, its inherited tag) — gets
    SIGTERM, then SIGKILL 5 s later, and is checked gone before the record is settled; a lost lease
    stops the run (failed), a loss at the agent's very start too;
  - the run record is written before the leases are taken: a dispatch killed while it starts a run
    leaves a run waves status shows stale, whose leases --reap (or waves stop) releases;
  - at most --concurrency agents at once; --timeout (at most 24.8 days) stops an agent;
  - in the foreground (the default) waves waits, with a live line per running agent on a terminal, and
    Ctrl-C stops every agent, records them cancelled and releases their leases (exit code 130); a
    supervisor that dies (kill -9), stays stopped (SIGSTOP) more than 3 s, or has not settled its run
    10 s after its timeout and the grace has its run stopped and settled by the dispatch (failed, or
    timed_out past the timeout);
    --detach returns once every agent is started (waves status follows them, waves stop ends them).
With --dry-run nothing is started, written or leased: each command is shown shell-quoted for POSIX
shells (paste it and it runs exactly that argv) with its prompt, tier, model and routing rule.

Options:
${renderFlags(DISPATCH_FLAGS)}

Examples:
  waves dispatch --dry-run --top 10 --from-issues examples/backlog.json --root examples/shop
  waves dispatch --dry-run --agent claude --model claude-sonnet-4-5 --all-waves
  waves dispatch --agent mytool --worktree --timeout 30m
  waves dispatch --wave 2 --concurrency 2 --detach && waves status
  waves dispatch --agent mytool --worktree && waves harvest --commit   # then witness and commit

Agents, each able to edit its work tree unattended and to run the config's verify commands, and
no other command it would have to ask for (never bypassing every permission):
  opencode  opencode run --title … --model=… PROMPT, its permissions in OPENCODE_CONFIG_CONTENT
            (edits allowed, bash only for the verify commands, no "ask" left);
  claude    claude --print --allowedTools 'Bash(<verify command>:*)'… --permission-mode acceptEdits
            --model=… PROMPT;
  codex     codex exec --sandbox workspace-write --cd <its worktree or the root> --model=… PROMPT;
or any agent of waves.config.json ("agents": {"mytool": {"command": ["mytool", "--title",
"{title}", "{prompt}"]}}). A preset's command is fixed; its entry may set only settings: "env"
(["GITHUB_TOKEN"]) and "permissions" that widen it ({"commands": [["make", "check"]]} for claude
and opencode, {"allowedTools": ["WebFetch"]} for claude, {"sandbox": "danger-full-access"} for
codex), both honoured from a --config file only (a repository's own config may narrow, never widen). Issue text in a template is data: it may stand only as the
value of a flag known to take one ("--title", "{title}" or "--title={title}"; mark your tool's own
with "valueFlags", never a code flag) or as the whole "{prompt}" element, and never as the code of
a program (sh -c, node -e, make --eval, git -c…) or anywhere after one that runs its arguments as
code (tmux, ssh, vim, awk…).
Before any git runs (and again before each worktree is made), git config that names a program —
a filter, a signing program — added or changed since you trusted it stops the dispatch (exit 2;
an issue whose worktree would come after it is skipped, saying why): see waves trust --help.
A waves.config.json of the repository changed while a run of an earlier dispatch was running
(an agent may have rewritten its verify or agents, and even committed it) is not sealed: the
dispatch stops (exit 2) until you check it, then touch it (your change) or restore it.
Exit codes: 0 every agent succeeded (or started, with --detach; or shown, with --dry-run),
1 an agent failed or timed out, or a run's leases could not be released (a line names them and
the waves lease release --force commands that free them), 2 bad flag, input or config (or a
refusal: a base or run branch written while runs not yet harvested ran), 3 the git lease table
busy (every compare-and-swap lost to other writers: try again), 130 cancelled.
`;

/** A prompt template is a page or two of text; past this it is refused. */
const MAX_PROMPT_BYTES = 1024 * 1024;

export async function runDispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('dispatch', DISPATCH_FLAGS, argv);
  if (values.help) {
    io.stdout(DISPATCH_HELP);
    return 0;
  }
  const dryRun = Boolean(values['dry-run']);
  const wave = intFlag(values, 'wave', 1);
  if (wave !== undefined && values['all-waves']) throw new UsageError('--wave and --all-waves pick the waves twice; use one');
  if (!dryRun && values['all-waves']) throw new UsageError('--all-waves: a run dispatches one wave at a time (preview them all with --dry-run)');
  if (!dryRun && values.json) throw new UsageError('--json: only with --dry-run (waves status --json reports runs)');
  const concurrency = intFlag(values, 'concurrency', 1);
  const modelFlag = stringFlag(values, 'model');
  const modelProblem = modelFlag === undefined ? null : modelNameProblem(modelFlag);
  if (modelProblem !== null) throw new UsageError(`--model: ${JSON.stringify(modelFlag)} ${modelProblem}`);
  const timeoutText = stringFlag(values, 'timeout');
  const timeoutMs = timeoutText === undefined ? null : durationOf(timeoutText, { flag: 'timeout' });
  // --base is checked before anything else is read: a ref git cannot resolve to a commit (or one
  // that would reach git as an option) is a bad flag, not a wave of skipped issues.
  const base = stringFlag(values, 'base');
  if (values.worktree && base !== undefined) {
    const { root: baseRoot } = await rootFlag(values, io);
    const resolved = await resolveBase(baseRoot, base);
    if (!resolved.ok) throw new UsageError(`--base: ${resolved.why}`);
  }
  // A dry run writes nothing, not even the graph cache.
  const { input, config, root, journal, leaseStore, holder, leasesUnknown, issuesFile } = await loadPlanInput(values, io, { writeCache: !dryRun });
  // Fail closed: with the lease table out of reach, what other machines hold is unknown.
  if (leasesUnknown !== null && !dryRun) throw new LeaseRemoteError(`dispatch refused: the remote leases could not be read (${leasesUnknown})`);
  let agent;
  try {
    agent = agentTemplate(stringFlag(values, 'agent') ?? 'opencode', config.config.agents ?? {}, { verify: config.config.verify, verifyFromRepository: !config.explicit });
  } catch (error) {
    if (error instanceof AgentTemplateError) throw new UsageError(`--agent: ${error.message}`);
    throw error;
  }
  // The token goes to an agent only by the user's own config, never by the repository's; nor does
  // a permission beyond a preset's own.
  checkTokenPassThrough(config, agent);
  checkPermissionWidening(config, agent);
  checkLogFloor(config);
  const setupTimeoutMs = durationOf(config.config.worktree?.setupTimeout ?? DEFAULT_SETUP_TIMEOUT, { configKey: 'worktree.setupTimeout' });
  // Each worktree is set up before its agent starts: the config's commands, or the lockfile's install.
  // The clean tree harvest verifies in is set up the same way, worktree or not (sealed with the verify commands).
  const verifySetup = config.config.worktree?.setup ?? (await lockfileSetup(root));
  const setup = values.worktree ? verifySetup : [];
  let promptTemplate = config.config.prompt?.template ?? DEFAULT_PROMPT_TEMPLATE;
  if (config.config.prompt?.file) {
    const promptFile = await configPath(config, root, 'prompt.file', config.config.prompt.file);
    // A regular file only: a clone's FIFO there would hang the dispatch.
    const read = await readRegularFile(promptFile, { maxBytes: MAX_PROMPT_BYTES, followLinks: true });
    if (!read.ok) throw new ConfigError(`config prompt.file ${config.config.prompt.file}: ${read.kind === 'missing' ? 'cannot read it (ENOENT)' : read.reason}`);
    promptTemplate = read.text;
  }
  const analysis = analyzePlan(input);
  const { plan } = analysis;
  const violations = verifyPlan(plan, input);
  if (violations.length > 0) throw new Error(`the plan failed verification: ${violations.map((v) => v.message).join('; ')}`);
  if (wave !== undefined && !plan.waves.some((w) => w.index === wave)) {
    throw new UsageError(`--wave ${wave}: the plan has ${plan.waves.length} wave(s)`);
  }
  const packages = input.repo.packages.filter((p) => p.dir !== '');
  const dispatchOptions: DispatchOptions = {
    agent,
    routing: config.config.routing,
    modelOverride: stringFlag(values, 'model') ?? null,
    promptTemplate,
    verify: config.config.verify,
    issues: new Map(input.issues.map((i) => [i.number, i])),
    // This waves, by absolute path: an agent's PATH may hold no waves, or another one.
    fenceCheck: shellQuote([process.execPath, SUPERVISOR_BIN, 'fence', 'check']),
    protectedPaths: [...BUILTIN_SERIAL_GLOBS.map((g) => g.replace(/^\*\*\//, '')), ...(config.config.serial ?? [])],
    packagesOf: (paths) => packagesOfPaths(packages, paths),
    worktree: values.worktree ? { base: stringFlag(values, 'base') ?? 'HEAD', dir: '.waves/worktrees' } : null,
    root,
    setup,
    waves: values['all-waves'] ? 'all' : [wave ?? 1],
  };
  let waves;
  try {
    waves = buildDispatch(plan, dispatchOptions);
  } catch (error) {
    if (error instanceof AgentTemplateError) throw new ConfigError(`config agents: ${error.message}`);
    throw error;
  }
  if (dryRun) {
    if (values.json) io.stdout(`${JSON.stringify(dispatchJson(plan, waves), null, 2)}\n`);
    else io.stdout(renderDispatch(plan, waves, { agent: agent.name, modelOverride: stringFlag(values, 'model') ?? null }));
    return 0;
  }
  if (plan.waves.length === 0) {
    io.stderr('waves: nothing to dispatch: the plan has no wave\n');
    return 0;
  }
  // Paths in plans, fences and worktrees are relative to the root: it must be the top of its repository.
  const where = await workTreeOf(root);
  if (where.kind === 'inside') {
    throw new UsageError(`--root ${path.relative(io.cwd, root) || '.'}: inside the git repository ${where.top}, not at its top; dispatch from the top (plan and --dry-run work anywhere)`);
  }
  // The repository's config, rewritten by an agent of an earlier dispatch, must not be sealed for this one.
  if (config.file !== null) {
    const changed = await configChangedDuringRuns(root, path.join(root, RUNS_DIR), config.file);
    if (changed !== null) throw new ConfigError(`config ${changed}`);
  }
  // So must the issues file the plan was read from: its text decides the fences an agent of this
  // wave may write in (an agent of wave 1 could name the CI workflow in an issue of wave 2).
  if (issuesFile !== null) {
    const changed = await configChangedDuringRuns(root, path.join(root, RUNS_DIR), issuesFile, "the issues the plan reads, and so the fences of this wave's agents");
    if (changed !== null) throw new UsageError(`--from-issues ${changed}`);
  }
  // The commit every worktree of this dispatch starts from, resolved once, now: a name looked up
  // as each run starts would follow what an agent of an earlier run of this wave put there (red
  // team H1). Refused when it was written meanwhile by an agent of a run not yet harvested.
  let baseCommit: string | null = null;
  if (values.worktree) {
    const resolved = await resolveBase(root, base ?? 'HEAD');
    if (!resolved.ok) throw new UsageError(`--base: ${resolved.why}`);
    baseCommit = resolved.commit;
  }
  // The sealed records of the runs, read once for every check below (no run starts meanwhile).
  const seals = await runSeals(path.join(root, RUNS_DIR));
  {
    const moved = await baseMovedDuringRuns(root, seals, base ?? null, baseCommit);
    if (moved !== null) throw new UsageError(`dispatch refused: ${moved}`);
  }
  const index = wave ?? 1;
  const size = plan.waves.find((w) => w.index === index)!.issues.length;
  // The issues' own branches and worktrees, where their runs would continue: the same rule (red
  // team I3, J1, J2).
  for (const issue of waves.flatMap((w) => w.issues)) {
    if (issue.worktree === null) continue;
    const moved =
      (await runBranchMovedDuringRuns(root, seals, issue.worktree.branch)) ??
      (await worktreeReuseProblem(root, seals, issue.worktree.path, issue.worktree.branch));
    if (moved !== null) throw new UsageError(`dispatch refused: #${issue.number}: ${moved}`);
  }
  const ttlText = config.config.leases?.ttl;
  const configuredTtl = ttlText === undefined ? 3_600_000 : durationOf(ttlText, { configKey: 'leases.ttl' });
  // A lease outlives the run it covers: at least the timeout, at least the configured time — and no
  // more than the journal holds (the supervisor renews it while the agent runs anyway).
  const ttlMs = Math.min(MAX_DURATION_MS, timeoutMs === null ? configuredTtl : Math.max(configuredTtl, timeoutMs + 600_000));
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const live = io.stderrIsTTY ? startTicker(io) : null;
  try {
    const result = await runWave({
      root,
      runsDir: path.join(root, RUNS_DIR),
      journal,
      leaseStore,
      holder,
      ttlMs,
      agentName: agent.name,
      analysis,
      plan,
      // The plan's own rule decides each run's leases, inside the journal's lock.
      rules: { graph: input.repo.graph, tree: analysis.tree, contentionDepth: analysis.options.contentionDepth, serial: analysis.options.serial },
      // Every run's edits are checked against the leases as they happen (the live fence).
      ...(config.config.fence?.live === false ? {} : { fence: { onRefusal: config.config.fence?.onRefusal ?? 'tell' } }),
      waveIndex: index,
      dispatch: dispatchOptions,
      worktreeBase: baseCommit,
      concurrency: concurrency ?? size,
      timeoutMs,
      detach: Boolean(values.detach),
      supervisor: [process.execPath, SUPERVISOR_BIN, '__run'],
      supervisorTokens: tokensOf(io.env),
      logMaxBytes: config.config.logs?.maxBytes ?? null,
      // Sealed in each record: the harvest runs these, whatever the config says by then.
      projectConfigAllowed: Object.hasOwn(config.config.agents ?? {}, agent.name) && config.config.agents![agent.name]!.permissions?.projectConfig === true,
      verify: { commands: config.config.verify ?? [], timeoutMs: durationOf(config.config.verifyTimeout ?? DEFAULT_VERIFY_TIMEOUT, { configKey: 'verifyTimeout' }), config: config.file, setup: verifySetup },
      setupTimeoutMs,
      graceMs: killGraceMs(io.env),
      now: () => io.now(),
      signal: controller.signal,
      afterLeases: pauseAfterLeases(io.env),
      onEvent: (event) => {
        if (live) live.print(event, describeEvent(event));
        else io.stderr(`${describeEvent(event)}\n`);
      },
    });
    live?.stop();
    io.stdout(renderRuns(result.records.map((record) => ({ record, view: record.status })), { root }));
    // Runs whose leases could not be released (their supervisor says so in the reason): the lanes
    // stay held until they expire, so the dispatch failed whatever the agents did.
    const unreleased = result.records.filter((r) => r.reason?.includes('were NOT released') && r.leaseIds.length > 0);
    for (const r of unreleased) {
      io.stderr(`waves: #${r.issue.number}: its leases ${r.leaseIds.join(', ')} were not released (see its record ${r.id}); once the cause is fixed, free them with: ${r.leaseIds.map((id) => `waves lease release --force ${id}`).join('; ')}\n`);
    }
    if (result.cancelled) return 130;
    if (unreleased.length > 0) return 1;
    if (values.detach) return 0;
    return result.records.every((r) => r.status === 'succeeded') ? 0 : 1;
  } catch (error) {
    live?.stop();
    if (error instanceof Error && error.message.startsWith('--detach')) throw new UsageError(error.message);
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * For tests only: with WAVES_TEST_PAUSE_AFTER_LEASES=FILE, the dispatch writes the run id to FILE
 * once a run's leases are taken, and waits there for ever — so that a test can kill it (-9) at that
 * exact point, without guessing a delay. Not a feature: undocumented outside this comment.
 */
function pauseAfterLeases(env: CliIo['env']): ((runId: string) => Promise<void>) | undefined {
  const file = env.WAVES_TEST_PAUSE_AFTER_LEASES;
  if (!file) return undefined;
  return async (runId) => {
    await writeFile(file, `${runId}\n`);
    await new Promise<never>(() => setInterval(() => undefined, 60_000));
  };
}

/** The bin that starts supervisors: the one this process runs from. */
const SUPERVISOR_BIN = fileURLToPath(new URL('../../bin/waves.js', import.meta.url));

function describeEvent(event: RunEvent): string {
  switch (event.type) {
    case 'refused':
      if (event.reason !== 'overlap') return `waves: #${event.number} skipped: ${safeText(event.message)}`;
      return `waves: #${event.number} skipped: ${safeText(event.lane)} is leased by ${safeText(event.holder)} until ${event.until}`;
    case 'skipped':
      return `waves: #${event.number} skipped: ${safeText(event.reason)}`;
    case 'reused':
      return `waves: #${event.number} continues in its worktree ${safeText(event.path)} (${safeText(event.branch)})`;
    case 'unaudited':
      return `waves: #${event.number} continues ${safeText(event.branch)}, whose last ${event.commits} commit(s) waves did not make (an earlier agent's, or another's): harvest audits them with this run, from ${event.from.slice(0, 12)}`;
    case 'candidate':
      return `waves: #${event.number} takes the place of #${event.replacing}`;
    case 'started':
      return `waves: #${event.number} started (${event.record.id}, log ${path.basename(event.record.log)})`;
    case 'ended':
      return `waves: #${event.number} ${event.record.status}${event.record.reason ? `: ${safeText(event.record.reason)}` : ''}`;
    case 'cancelling':
      return `waves: stopping ${event.running.map((n) => `#${n}`).join(', ') || 'nothing'}; their leases are released`;
  }
}

/**
 * Live lines on a terminal, below the messages: one per running agent, with its issue, its run
 * and how long it has run, redrawn every second; a message is printed above them.
 */
function startTicker(io: CliIo): { print: (event: RunEvent, message: string) => void; stop: () => void } {
  const running = new Map<number, { since: number; id: string }>();
  let drawn = 0;
  const clear = () => {
    if (drawn > 0) io.stderr(`\u001b[${drawn}A\r\u001b[J`);
    drawn = 0;
  };
  const draw = () => {
    clear();
    const now = Date.now();
    const lines = [...running].map(([n, r]) => `  #${n} running ${Math.round((now - r.since) / 1000)}s · ${r.id}`);
    for (const line of lines) io.stderr(`${line}\n`);
    drawn = lines.length;
  };
  const timer = setInterval(draw, 1000);
  timer.unref();
  return {
    print(event, message) {
      clear();
      io.stderr(`${message}\n`);
      if (event.type === 'started') running.set(event.number, { since: Date.parse(event.record.startedAt), id: event.record.id });
      if (event.type === 'ended') running.delete(event.number);
      draw();
    },
    stop() {
      clearInterval(timer);
      clear();
    },
  };
}
