/**
 * The supervisor of one agent run: a small process of its own (`waves __run RECORD`), so that a
 * run is watched and settled whether `waves dispatch` waits in the foreground or has returned.
 * It watches the leases and checks they are still held, runs the worktree's setup commands when
 * the run has any (worktree-setup.ts: a failure settles the run failed, and no agent starts),
 * then starts the agent (argv, no shell,
 * stdin closed, output to the log, the GitHub tokens left out unless passed through,
 * `WAVES_RUN=<run id>` added) as the leader of its own process group, tracks its descendants
 * (Linux), writes the pid file and the record, keeps the leases, enforces the timeout and forwards
 * a cancellation. However the run ends — the agent's own exit, the timeout, a signal, a lost
 * lease — it then stops what is left of the run's processes (SIGTERM, the grace, SIGKILL: the
 * daemon an agent left behind too), checks they are gone, finishes the log (redacted), and only
 * then settles the record and releases the leases.
 */
import path from 'node:path';
import { MAX_DURATION_MS } from '../leases/lease-journal.js';
import { leaseStoreOf, openLeaseBackend } from '../leases/open-lease-backend.js';
import { runVerify } from '../harvest/run-verify.js';
import { shellQuote } from '../shell-quote.js';
import { childEnvironment, markerEntry, RUN_MARKER, secretsOf, TOKEN_VARIABLES } from './agent-env.js';
import { createPidFile, HeldLog } from './held-log.js';
import { keepLeases, type LeaseKeeper } from './keep-leases.js';
import { fenceProblem, runLeasesOf } from './run-leases.js';
import { DEFAULT_GRACE_MS, stopProcessTree } from './kill-tree.js';
import { exitWithin, startLogged, type Exit, type LoggedProcess } from './logged-process.js';
import { readSeals, readTrustedRecord, TERMINAL, writeRecord, type RunRecord, type TerminalStatus } from './run-record.js';
import { processStart } from './process-table.js';
import { runStrays, stopStrays, type Stray } from './stray-processes.js';
import { DescendantTracker } from './track-descendants.js';
import { CLIENT_MODULE, startLiveFence, type LiveFence } from '../fence/live-fence.js';
import { CACHE_DIR, dropCachesChangedDuring } from '../harvest/cache-written.js';
import { integrationText } from '../fence/fence-integrations.js';
import { plantedBeforeAgent } from './worktree-reuse.js';
import { projectAgentConfigProblem } from '../agents/project-agent-config.js';

/** At most one record write a second for the tracker's findings. */
const TRACK_SAVE_MS = 1_000;

export interface SuperviseOptions {
  /** Between SIGTERM and SIGKILL when the agent must stop (default 5 s). */
  graceMs?: number;
  now?: () => Date;
  /** The environment the agent's is made from, and the secrets redacted from its log (default: this process's). */
  env?: Readonly<Record<string, string | undefined>>;
  /** How the agent's hooks run this waves (node and its bin); default: this process's. */
  waves?: readonly string[];
}

/** Sends a signal to a whole process group, ignoring one that is already gone. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  if (!Number.isSafeInteger(pid) || pid <= 1) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

export async function superviseRun(recordFile: string, options: SuperviseOptions = {}): Promise<RunRecord> {
  const now = options.now ?? (() => new Date());
  const grace = options.graceMs ?? DEFAULT_GRACE_MS;
  const env = options.env ?? process.env;
  // The sealed copy: the repository's may already have been rewritten by another agent of the wave.
  let record = await readTrustedRecord(recordFile);
  // Stopped (waves stop) while the dispatch was starting it: its record and leases are settled.
  if ((TERMINAL as readonly string[]).includes(record.status)) return record;
  // One write at a time, each of the record as it is when its turn comes: a late write of an older
  // state (the tracker's, throttled) never lands over the settled record.
  let saving: Promise<void> = Promise.resolve();
  const save = (changes: Partial<RunRecord>): Promise<void> => {
    record = { ...record, ...changes };
    const next = saving.then(() => writeRecord(recordFile, record));
    saving = next.catch(() => undefined);
    return next;
  };
  // The log and the pid file are created now, before the agent starts, and written only through
  // their descriptors (held-log.ts): whatever the agent puts at their names is never followed.
  let log: HeldLog | null = null;
  // Lines of waves' own in the log (through its descriptor, never by name).
  const note = (line: string) => log?.append(`\n[waves] ${line}\n`);
  // The run's processes carry the id of the record's file name, which the agent cannot change.
  const runId = path.basename(recordFile, '.json');

  // Set by signal handlers, timers and the lease keeper: the first reason to stop wins.
  const state: { ending: { status: TerminalStatus; reason: string } | null } = { ending: null };
  let requestStop: () => void = () => undefined;
  const stopRequested = new Promise<void>((resolve) => (requestStop = resolve));
  const stop = (status: TerminalStatus, reason: string) => {
    if (state.ending !== null) return;
    state.ending = { status, reason };
    requestStop();
  };
  // Read through a function: the closures above set it, which flow analysis does not see.
  const endingNow = () => state.ending;
  const onSignal = (signal: NodeJS.Signals) => stop('cancelled', `stopped by ${signal}`);
  for (const signal of SIGNALS) process.on(signal, onSignal);

  const leases = openLeaseBackend(leaseStoreOf(record), now);
  let keeper: LeaseKeeper | null = null;
  let timer: NodeJS.Timeout | undefined;
  let agentPid: number | null = null;
  let agentStart: number | null = null;
  let tracker: DescendantTracker | null = null;
  const tracking: (() => void)[] = [];
  const stopTracking = () => {
    for (const stopIt of tracking.splice(0)) stopIt();
  };
  let pidFile: ReturnType<typeof createPidFile> | null = null;
  let fence: LiveFence | null = null;
  // The live fence ends once the agent's processes are gone: its hooks, socket and watcher, its extensions' leases.
  const closeFence = async () => {
    const closing = fence;
    fence = null;
    await closing?.close().catch((error: unknown) => note(`fence: ${(error as Error).message.split('\n')[0]}`));
  };
  try {
    log = HeldLog.create(record.log);
    // The pid file is a convenience (the record holds the pid): one that cannot be created is noted.
    try {
      pidFile = createPidFile(record.pidFile);
    } catch (error) {
      note(`no pid file: ${(error as Error).message.split('\n')[0]}`);
    }
    // For tests only: a supervisor slow to boot (a loaded machine), to show a detached dispatch waits for it.
    const bootDelay = Number(process.env.WAVES_TEST_SUPERVISOR_BOOT_DELAY_MS ?? 0);
    if (bootDelay > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(bootDelay, 10_000)));
    await save({ supervisorPid: process.pid });
    // The leases are watched before the agent starts, and checked: an agent is never started on a
    // lease already lost, and a loss as it starts (the journal emptied at once) is seen.
    keeper = keepLeases({
      backend: leases,
      ids: record.leaseIds,
      ttlMs: record.leaseTtlMs,
      now,
      onLost: (lane, why) => {
        const reason = `its lease on ${lane} was lost (${why})`;
        note(`${reason}; stopping the agent`);
        stop('failed', reason);
      },
      onTrouble: (message) => note(message),
    });
    await keeper.verify();
    const before = endingNow();
    if (before !== null) {
      // Nothing was started.
      await log.finish([]);
      await save({ status: before.status, reason: before.reason, endedAt: now().toISOString() });
      return record;
    }
    // The run's time counts from here: its worktree's setup is part of it.
    if (record.timeoutMs !== null) {
      const limit = Math.min(record.timeoutMs, MAX_DURATION_MS);
      timer = setTimeout(() => stop('timed_out', `no end after ${Math.round(limit / 1000)} s`), limit);
    }
    // What a setup command leaves behind (a daemon a postinstall starts) is swept at the end like an
    // agent's: from the supervisor's own start, which comes before the setup's (red team 5, F8).
    const setupSince = record.setup && record.setup.commands.length > 0 ? processStart(process.pid) : null;
    let setupFailure = await setUpWorktree(record, { env, grace, runId, stopRequested, save });
    // The agent's own project config in its tree (and, for a worktree, the main checkout around it)
    // must not widen what waves allows it (project-agent-config.ts): checked after the setup, which
    // may write files too.
    if (setupFailure === null && !record.projectConfigAllowed) {
      const mainCheckout = record.worktree ? path.resolve(record.cwd, '..', '..', '..') : null;
      // waves' own hook files (another run's of a shared tree, or one this run installs) are exempt, by their exact text.
      const waves = options.waves ?? [process.execPath, process.argv[1]!];
      const own = new Set((['claude', 'opencode'] as const).map((kind) => integrationText(kind, { waves, clientModule: CLIENT_MODULE, env: env as NodeJS.ProcessEnv })));
      setupFailure = await projectAgentConfigProblem(record.cwd, record.argv, mainCheckout && mainCheckout !== record.cwd ? [mainCheckout] : [], record.agent, own);
    }
    // What another agent may have written in the worktree since the run started (red team K3, K4).
    if (setupFailure === null && record.worktree && record.start?.tree) setupFailure = await plantedBeforeAgent(record.cwd, record.start.tree);
    /** The agent never started: noted, its fence closed, what the setup left in the run's tree stopped, the record settled. */
    const notStarted = async (ending: { status: TerminalStatus; reason: string }, held: HeldLog): Promise<RunRecord> => {
      note(`not started: ${ending.reason}`);
      await closeFence();
      const setupStrays = await sweepStrays(recordFile, record, runId, setupSince, grace);
      if (setupStrays.found.length > 0) note(`stopped ${setupStrays.found.length} process(es) the worktree setup left in the run's tree: ${setupStrays.found.map((s) => `${s.pid} (${s.command}; ${s.where})`).join(', ')}`);
      await held.finish([]);
      await save({ status: ending.status, reason: ending.reason, endedAt: now().toISOString() });
      return record;
    };
    const afterSetup = endingNow() ?? (setupFailure === null ? null : { status: 'failed' as const, reason: setupFailure });
    if (afterSetup !== null) return notStarted(afterSetup, log);
    // The live fence, before the agent: its hooks are in its tree and every write is watched from its first.
    fence = await startLiveFence({
      recordFile,
      record,
      runId,
      now,
      waves: options.waves ?? [process.execPath, process.argv[1]!],
      env: env as NodeJS.ProcessEnv,
      save: (fenceLog) =>
        save({
          fence: {
            installed: fenceLog.installed,
            extensions: [...fenceLog.extensions],
            refusals: [...fenceLog.refusals],
            ...(fenceLog.unwatched ? { unwatched: [...fenceLog.unwatched] } : {}),
          },
        }),
      note,
      stopRun: (reason) => {
        note(`${reason}; stopping the agent (fence.onRefusal: stop)`);
        stop('fenced', reason);
      },
      leaseLost: (reason) => {
        note(`${reason}; stopping the agent`);
        stop('failed', reason);
      },
    });
    // From here on, what lands in ignored files (node_modules, builds, caches) is the agent's. Taken
    // before the last check below: what another process writes into the tree after it (the window
    // between a check and the agent's exec, which no check closes) is written after this instant.
    const agentStartedAt = now().toISOString();
    // Once more, the last thing before the agent starts (the live fence took a while to start, and
    // another agent could write meanwhile: red team K4b, under load): its hook files aside.
    if (record.worktree && record.start?.tree) {
      const planted = await plantedBeforeAgent(record.cwd, record.start.tree, fence?.installed ?? []);
      if (planted !== null) return notStarted({ status: 'failed', reason: planted }, log);
    }
    // A tag the agent inherits (Linux; see track-descendants.ts), held only while it is started.
    const tagged = DescendantTracker.tagSelf();
    let agent: LoggedProcess;
    try {
      agent = startLogged(record.argv, {
        cwd: record.cwd,
        // The fence's key goes to the agent alone: another run's agent cannot ask this run's fence.
        // Named so that agents' secret filters (codex drops *KEY*, *SECRET*, *TOKEN*) pass it to their shells.
        env: { ...childEnvironment(env, { passThrough: record.passEnv ?? [], runId }), ...ownVariables(record.agentEnv), ...(fence ? { WAVES_FENCE_TICKET: fence.key } : {}) },
        log,
        maxBytes: record.logMaxBytes ?? null,
        secrets: secretsOf(env),
      });
    } finally {
      tagged?.untag();
    }
    agentPid = agent.pid;
    agentStart = agent.pid === null ? null : processStart(agent.pid);
    if (agent.pid !== null) {
      // Every process that descends from the agent, wherever it goes (Linux), kept in the record
      // (throttled) for waves stop and a takeover.
      tracker = DescendantTracker.forAgent(agent.pid, record.logMaxBytes ? null : log.openPath(), tagged?.tag ?? null, markerEntry(runId));
      if (tracker) {
        const watched = tracker;
        let dirty = false;
        tracking.push(watched.watch(() => (dirty = true)));
        const saver = setInterval(() => {
          if (!dirty) return;
          dirty = false;
          save({ tracked: watched.snapshot() }).catch(() => undefined);
        }, TRACK_SAVE_MS);
        tracking.push(() => clearInterval(saver));
      }
      pidFile?.write(agent.pid);
      await save({ pid: agent.pid, status: 'running', agentStartedAt, ...(tracker ? { tracked: tracker.snapshot() } : {}) });
    }
    // Once more now that it runs: a lease lost while it was being started.
    await keeper.verify();
    // Whichever comes first: the agent's own end, or a reason to stop it.
    let exit: Exit | null = await Promise.race([agent.exited, stopRequested.then(() => null)]);
    // Once the agent has ended, the ending is its own: a later signal only hurries the cleanup.
    const stoppedFirst = exit === null ? state.ending : null;
    keeper.stop();
    clearTimeout(timer);
    stopTracking();
    // Everything the run started goes, whatever the ending: a daemon left after an exit 0 too.
    const tree = await stopProcessTree({ pgid: agent.pid, runId, trusted: true, tracker }, { graceMs: grace });
    // What escaped the tracker but still sits in the run's tree (Linux): stopped too, and named.
    const agentSince = tracker?.since ?? agentStart;
    const strays = await sweepStrays(recordFile, record, runId, setupSince !== null && agentSince !== null ? Math.min(setupSince, agentSince) : (agentSince ?? setupSince), grace);
    if (strays.found.length > 0) {
      note(`stopped ${strays.found.length} process(es) that escaped the run's tracking but sat in its tree: ${strays.found.map((s) => `${s.pid} (${s.command}; ${s.where})`).join(', ')}`);
    }
    // The repository's caches an agent of this run could have rewritten (cache-written.ts): gone
    // before any plan reads them again, not only at harvest (a plan in between would write them anew).
    const dropped = await dropCachesChangedDuring(path.dirname(path.dirname(recordFile)), Date.parse(record.startedAt), Date.now()).catch(() => [] as string[]);
    if (dropped.length > 0) note(`${CACHE_DIR}/ changed while the run ran (${dropped.join(', ')}): no waves process writes it then, an agent can; removed, the next plan rebuilds it`);
    // Every write its processes made is checked first: an agent that wrote outside its fence and
    // ended at once had its grant still on the way, and the check below would not have known of it.
    await fence?.settle();
    // The fencing check, before the leases are released: were they all still held, each with its
    // token, now that the agent's processes are gone — the planned ones and those of the paths the
    // live fence added (on either backend: the journal's watch sees the planned ones only)? A lease
    // held now with its token was held throughout. Work done without them is not the run's to hand over.
    let leaseEnd: RunRecord['leaseEnd'];
    const { ids: heldIds, epochs: heldEpochs } = runLeasesOf(record);
    if ((leases.kind === 'git' || heldIds.length > record.leaseIds.length) && state.ending === null) {
      const problem = await leases
        .list()
        .then(({ leases: live }) => fenceProblem(live, heldIds, heldEpochs, now().getTime()))
        .catch((error: unknown) => `the lease table could not be read (${(error as Error).message.split('\n')[0]})`);
      leaseEnd = { held: problem === null, at: now().toISOString(), detail: problem };
      if (problem !== null) {
        note(`its lease was lost before the agent ended (${problem})`);
        stop('failed', `its lease was lost before the agent ended (${problem})`);
      }
    }
    // A leader that survived even SIGKILL (stuck in the kernel) must not hold the record forever.
    exit ??= await exitWithin(agent, tree.survivors.length > 0 ? 1_000 : 10_000);
    await closeFence();
    await agent.close();
    pidFile?.finish();
    // Redacted (unless the cap redacted it as it came) and put back at its name.
    const logTrouble = await log.finish(record.logMaxBytes ? [] : secretsOf(env));
    const fenced = leaseEnd && !leaseEnd.held ? state.ending : null;
    const status: TerminalStatus = stoppedFirst?.status ?? fenced?.status ?? (exit.code === 0 ? 'succeeded' : 'failed');
    let reason = stoppedFirst?.reason ?? fenced?.reason ?? exit.error ?? (status === 'failed' ? `exit code ${exit.code ?? `signal ${exit.signal}`}` : null);
    const survivors = [...tree.survivors, ...strays.survivors];
    if (survivors.length > 0) reason = `${reason ?? status}; pid(s) ${survivors.join(', ')} still there after SIGKILL`;
    if (logTrouble !== null) reason = `${reason ?? status}; ${logTrouble}`;
    await save({
      status, exitCode: exit.code, signal: exit.signal, reason, endedAt: now().toISOString(),
      ...(leaseEnd ? { leaseEnd } : {}),
      ...(tracker ? { tracked: tracker.snapshot() } : {}),
      ...(strays.found.length > 0 ? { strays: strays.found.map(({ pid, command, where }) => ({ pid, command, where })) } : {}),
    });
  } catch (error) {
    stopTracking();
    await stopProcessTree({ pgid: agentPid, runId, trusted: true, tracker }, { graceMs: grace }).catch(() => undefined);
    await closeFence();
    await log?.finish(record.logMaxBytes ? [] : secretsOf(env));
    await save({ status: 'failed', reason: (error as Error).message.split('\n')[0] ?? 'failed', endedAt: now().toISOString() });
  } finally {
    pidFile?.close();
    log?.close();
    keeper?.stop();
    clearTimeout(timer);
    stopTracking();
    await closeFence();
    await saving;
    // However the run ended, its leases end with it; only then may a signal end this process.
    // A release that fails (a lock an agent planted…) is said in the record, never swallowed.
    const unreleased = await (record.leaseIds.length > 0 ? leases.release(record.leaseIds) : Promise.resolve()).then(
      () => null,
      (error: unknown) => (error as Error).message.split('\n')[0] ?? 'failed',
    );
    if (unreleased !== null) {
      const ids = record.leaseIds.join(', ');
      await save({ reason: `${record.reason ?? record.status}; its leases were NOT released (${unreleased}): any the journal still holds keep their lanes until they expire, or until waves lease release --force ${ids}` }).catch(() => undefined);
    }
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
  return record;
}

/**
 * Runs the worktree's setup commands (worktree-setup.ts) before the agent starts, as the harvest
 * runs verification commands: no shell, the agent's scrubbed environment and marker (the run's id:
 * `waves stop` finds them), their own log, a deadline each, every process stopped after each. A
 * reason to stop the run (a signal, the timeout, a lost lease) stops the command running. Returns
 * why the setup failed, or null when it passed (or there is none).
 */
async function setUpWorktree(
  record: RunRecord,
  context: { env: Readonly<Record<string, string | undefined>>; grace: number; runId: string; stopRequested: Promise<void>; save: (changes: Partial<RunRecord>) => Promise<void> },
): Promise<string | null> {
  const setup = record.setup;
  if (!setup || setup.commands.length === 0) return null;
  const controller = new AbortController();
  void context.stopRequested.then(() => controller.abort());
  const results = await runVerify(setup.commands, {
    cwd: record.cwd,
    log: setup.log,
    timeoutMs: Math.min(setup.timeoutMs, MAX_DURATION_MS),
    graceMs: context.grace,
    // HUSKY=0: husky (v4 to v9), which a repository's `prepare` script runs at every install,
    // writes core.hooksPath into the git config all worktrees share — a change of .git that makes
    // the harvest of every run refuse to run git there. It skips that when HUSKY is 0.
    env: { ...context.env, HUSKY: '0' },
    maxBytes: record.logMaxBytes ?? null,
    signal: controller.signal,
    runId: context.runId,
  });
  await context.save({ setupResults: results });
  const failed = results.find((r) => r.status !== 'passed');
  if (!failed) return null;
  const how =
    failed.status === 'timed_out'
      ? `did not end within ${Math.round(setup.timeoutMs / 1000)} s (worktree.setupTimeout)`
      : failed.status === 'error'
        ? `could not start (${failed.error ?? 'see its log'})`
        : `failed with exit code ${failed.exitCode ?? 'unknown (killed)'}`;
  return `worktree setup ${shellQuote(failed.argv)} ${how}; see ${path.basename(setup.log)}`;
}

/** The variables a record sets for its agent (a preset's own), never waves' marker nor a token. */
function ownVariables(variables: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables ?? {})) {
    if (name === RUN_MARKER || (TOKEN_VARIABLES as readonly string[]).includes(name)) continue;
    out[name] = value;
  }
  return out;
}

async function sweepStrays(recordFile: string, record: RunRecord, runId: string, since: number | null, graceMs: number): Promise<{ found: Stray[]; survivors: number[] }> {
  if (since === null) return { found: [], survivors: [] };
  const found = await runStrays(recordFile, record, runId, since);
  if (found.length === 0) return { found, survivors: [] };
  return { found, survivors: await stopStrays(found, graceMs) };
}
