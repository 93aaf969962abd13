/**
 * Runs one wave: for each issue, in rank order, write its run record (naming this dispatch), then
 * take leases on its paths (all or none) in the run's name; when a lease is refused, drop the
 * record, skip the issue and take the next candidate that fits; optionally create its git
 * worktree; complete the record and start its supervisor, at most `concurrency` at a time.
 * In the foreground, wait for every run and stop them all on abort (Ctrl-C); detached, return
 * once every supervisor is started. A foreground dispatch also watches its supervisors: one that
 * dies without settling its run (kill -9) leaves an agent nobody watches, so the dispatch stops
 * that agent's processes itself and settles the run failed, saying why; so does one whose
 * supervisor is stopped (SIGSTOP) or has not settled its run well past its timeout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execaGit } from '@waves/planner';
import { fenceLabels, isDirectoryLeaf, nextCandidate, WHOLE_REPOSITORY, type LeaseRefusalReason, type LeaseRules, type Plan, type PlanAnalysis, type PlanIssue } from '@waves/planner';
import { buildIssueDispatch, runBranchOf, type DispatchOptions } from '../build-dispatch.js';
import { checkGitTrust, GitTrustError } from '../git-trust/git-trust.js';
import { MAX_DURATION_MS } from '../leases/lease-journal.js';
import { openLeaseBackend, type LeaseStore } from '../leases/open-lease-backend.js';
import { dirtySnapshot, GIT_OPTIONS, headCommit, indexFlags, type DirtyFile } from '../harvest/git-changes.js';
import { readGitState } from '../harvest/git-snapshot.js';
import { blockingAncestor } from '../harvest/path-links.js';
import { auditedStart, readRefs } from '../harvest/ref-snapshot.js';
import { runBranchMovedDuringRuns } from './base-during-runs.js';
import { stateIdOf, worktreeFiles, worktreeStateId } from './worktree-reuse.js';
import { DEFAULT_GRACE_MS } from './kill-tree.js';
import { isStopped, processStart } from './process-table.js';
import { cloneTag, releaseOwnLeases } from './run-leases.js';
import { readSeals, readTrustedRecord, removeRecord, runFiles, runId, stamp, TERMINAL, writeRecord, type RunRecord, type RunScope } from './run-record.js';
import { RunsDir } from './held-log.js';
import { stopRun } from './stop-run.js';
import { killGroup } from './supervise.js';
import { gitFailure, worktreeProblem } from './worktree-check.js';
import { withoutTokens } from './agent-env.js';
import { setupLogOf } from './worktree-setup.js';

/** `worktree.setupTimeout`'s default, 10 minutes (worktree-setup.ts). */
const DEFAULT_SETUP_TIMEOUT_MS = 600_000;

export type RunEvent =
  | { type: 'refused'; number: number; lane: string; holder: string; until: string; reason: LeaseRefusalReason; message: string }
  | { type: 'skipped'; number: number; reason: string }
  | { type: 'candidate'; number: number; replacing: number }
  | { type: 'reused'; number: number; path: string; branch: string }
  /** It continues a branch holding commits waves did not make and seal (an earlier agent's, or planted): audited with this run. */
  | { type: 'unaudited'; number: number; branch: string; commits: number; from: string }
  | { type: 'started'; number: number; record: RunRecord }
  | { type: 'ended'; number: number; record: RunRecord }
  | { type: 'cancelling'; running: number[] };

export interface RunWaveOptions {
  root: string;
  runsDir: string;
  journal: string;
  /** Where leases are taken (default: the journal). */
  leaseStore?: LeaseStore;
  holder: string;
  ttlMs: number;
  agentName: string;
  analysis: PlanAnalysis;
  plan: Plan;
  /**
   * The plan's lease rule (its import graph, tree, contention depth, serial globs), applied inside
   * the journal's lock as each run takes its leases: an issue another orchestrator's run now
   * contends with through an import is skipped like one whose path is taken. Absent: paths only.
   */
  rules?: LeaseRules;
  /**
   * The live fence (`fence.onRefusal` of the config): with it, each record carries the rules its
   * supervisor's fence decides by (the plan's, above). Absent: no live fence.
   */
  fence?: { onRefusal: 'tell' | 'stop' };
  waveIndex: number;
  dispatch: DispatchOptions;
  /** Create a worktree per issue from this ref. */
  worktreeBase: string | null;
  concurrency: number;
  timeoutMs: number | null;
  detach: boolean;
  /** How to start a supervisor: argv to which the record file is appended. */
  supervisor: readonly string[];
  /**
   * The GitHub tokens the supervisors need (to redact them, and for an agent whose config passes
   * one): written as JSON to each supervisor's standard input, never put in its environment (which
   * its agent could read from /proc). Absent: none.
   */
  supervisorTokens?: Readonly<Record<string, string>>;
  now: () => Date;
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL when stopping (default 5 s). */
  graceMs?: number;
  /** Bytes of each agent's output kept in its log (`logs.maxBytes`); null or absent: no cap. */
  logMaxBytes?: number | null;
  /** The verification in force now (the config's), sealed in each record for the harvest. */
  verify?: { commands: readonly (readonly string[])[]; timeoutMs: number; config?: string | null; setup?: readonly (readonly string[])[] };
  /** `agents.<name>.permissions.projectConfig` of the person's config (project-agent-config.ts). */
  projectConfigAllowed?: boolean;
  /** How long each worktree setup command (`dispatch.setup`) may run; default 10 minutes. */
  setupTimeoutMs?: number;
  /**
   * Called once a run's leases are taken, before its record lists them or anything else happens.
   * For tests only: the CLI sets it from WAVES_TEST_PAUSE_AFTER_LEASES, to kill a dispatch at that
   * exact point deterministically.
   */
  afterLeases?: (runId: string) => Promise<void>;
}

export interface WaveResult {
  records: RunRecord[];
  skipped: { number: number; reason: string }[];
  cancelled: boolean;
}

export async function runWave(options: RunWaveOptions): Promise<WaveResult> {
  // Each run holds its leases as `<holder>/<clone>/<run id>`: unique across the clones sharing a table.
  const clone = await cloneTag(options.root, { create: true });
  const runHolder = (id: string) => `${options.holder}/${clone}/${id}`;
  const { plan, analysis } = options;
  const wave = plan.waves.find((w) => w.index === options.waveIndex);
  if (!wave) throw new Error(`the plan has no wave ${options.waveIndex}`);
  const emit = options.onEvent ?? (() => undefined);
  const leaseStore: LeaseStore = options.leaseStore ?? { backend: 'journal', journal: options.journal };
  const leaseBackend = openLeaseBackend(leaseStore, options.now);
  const releaseLeases = async (ids: readonly string[]) => {
    if (ids.length > 0) await leaseBackend.release(ids);
  };
  const issuesByNumber = new Map<number, PlanIssue>(plan.waves.flatMap((w) => w.issues.map((i) => [i.number, i] as const)));
  await mkdir(options.runsDir, { recursive: true });
  // Logs and records are local state, never commits. Written through the folder held open: a
  // runs folder an agent swapped for a link (to a repository of the person's) gets no `*` ignore.
  try {
    const runs = RunsDir.open(options.runsDir);
    await writeFile(runs.entry('.gitignore'), '*\n', { flag: 'wx' })
      .catch(() => undefined)
      .finally(() => runs.close());
  } catch {
    // not a folder: the runs' own files are refused when they are created
  }

  const queue = wave.issues.map((i) => i.number);
  const started = new Set<number>();
  const considered = new Set<number>();
  const skipped: WaveResult['skipped'] = [];
  const running = new Map<number, Started>();
  const records: string[] = [];
  let cancelled = false;
  // The runs of this dispatch, for waves harvest.
  const dispatchId = `dispatch-${stamp(options.now())}-${process.pid}`;
  // What each issue's worktree held before any agent of this dispatch started: one that changes
  // meanwhile, or appears, was written by an agent of this wave (red team J1, J2).
  const worktreesAtStart = new Map<string, string | null>();
  const startable = new Set([...wave.issues.map((i) => i.number), ...analysis.selected.map((i) => i.number)]);
  if (options.dispatch.worktree) {
    const folder = path.join(options.root, options.dispatch.worktree.dir);
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      const issue = /^issue-(\d+)$/.exec(name)?.[1];
      // Only the worktrees this dispatch could continue: the wave's issues and the candidates that may take their places.
      if (issue !== undefined && startable.has(Number(issue))) worktreesAtStart.set(path.join(folder, name), await worktreeStateId(options.root, path.join(folder, name), runBranchOf(Number(issue))));
    }
  }
  // Without worktrees every agent shares the work tree: what was uncommitted before any started.
  let sharedStart: Promise<NonNullable<RunRecord['start']>> | null = null;
  // The .git an agent could plant things in (hooks, config, info/), as it is before the agent starts.
  const gitOf = (cwd: string) => readGitState(cwd).catch(() => null);
  // The refs an agent could move under the person (its branch, tags, the root's HEAD).
  const refsOf = (cwd: string | null) => readRefs(options.root, cwd).catch(() => null);
  const startOf = async (cwd: string, worktree: boolean): Promise<NonNullable<RunRecord['start']>> => {
    const flagsOf = () => indexFlags(cwd).catch(() => null);
    if (worktree) return { head: await headCommit(cwd).catch(() => null), dirty: [], git: await gitOf(cwd), refs: await refsOf(cwd), flags: await flagsOf() };
    sharedStart ??= (async () => ({ head: await headCommit(cwd).catch(() => null), dirty: await dirtySnapshot(cwd).catch(() => []), git: await gitOf(cwd), refs: await refsOf(null), flags: await flagsOf() }))();
    return sharedStart;
  };
  // The commits waves made and sealed (harvest commits): a continued branch is audited from the newest.
  let sealedCommits: Promise<ReadonlySet<string>> | null = null;
  const ownCommits = () =>
    (sealedCommits ??= readSeals(options.runsDir)
      .then((seals) => new Set([...seals.values()].flatMap((r) => (r.witness?.commit ? [r.witness.commit.sha] : []))))
      .catch(() => new Set<string>()));
  const auditedFrom = async (cwd: string, tip: string, baseSpec: string) => {
    const base = await execaGit([...GIT_OPTIONS, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${baseSpec}^{commit}`], { cwd: options.root, reject: false, stdin: 'ignore' });
    if (base.exitCode !== 0) return { commit: tip, unaudited: 0 };
    return auditedStart(cwd, tip, base.stdout.trim(), ownCommits);
  };
  const scopeOf = (issue: PlanIssue): RunScope => {
    const scope = analysis.scopes.get(issue.number);
    return {
      fence: issue.paths,
      lanes: issue.lanes,
      serial: issue.serial,
      labels: options.dispatch.issues.get(issue.number)?.labels ?? [],
      leaves: (scope?.leaves ?? []).map((leaf) => ({
        path: isDirectoryLeaf(leaf.kind) ? `${leaf.path}/` : leaf.path,
        sources: [...new Set(leaf.evidence.map((e) => e.source))].sort(),
      })),
      // What the plan guessed rather than read: harvest never takes a control file there as planned.
      ...(issue.inferred ? { inferred: true } : {}),
      guessed: (scope?.leaves ?? []).filter((leaf) => leaf.evidence.length > 0 && leaf.evidence.every((e) => e.via.startsWith('inferred-'))).map((leaf) => (isDirectoryLeaf(leaf.kind) ? `${leaf.path}/` : leaf.path)),
    };
  };

  /** A plan issue for a candidate outside the planned waves (deferred beyond --max-waves). */
  const planIssueOf = (n: number): PlanIssue | null => {
    const known = issuesByNumber.get(n);
    if (known) return known;
    const issue = analysis.selected.find((i) => i.number === n);
    const scope = analysis.scopes.get(n);
    const leaves = analysis.leaves.get(n);
    if (!issue || !scope || !leaves) return null;
    return {
      number: n, title: issue.title, url: issue.url, lanes: scope.lanes.length > 0 ? scope.lanes : scope.subsystems,
      paths: fenceLabels(leaves, scope.namedControlFiles), tier: 'default', tierRule: 'taken as a candidate', serial: null, dependsOn: [],
    };
  };

  const replace = (number: number) => {
    // It must fit beside every issue of the wave, started or still waiting for a slot.
    const next = nextCandidate(analysis, new Set([...started, ...queue]), considered);
    if (next !== null) {
      considered.add(next);
      queue.push(next);
      emit({ type: 'candidate', number: next, replacing: number });
    }
  };

  const start = async (number: number): Promise<void> => {
    considered.add(number);
    const issue = planIssueOf(number);
    if (!issue) return;
    // A serial issue runs alone: it leases the whole repository.
    const lanes = issue.serial ? [WHOLE_REPOSITORY] : issue.paths.map((p) => p.replace(/\/$/, ''));
    const date = options.now();
    const id = runId(number, date);
    const files = runFiles(options.runsDir, id);
    const dispatch = buildIssueDispatch(plan, issue, {
      ...options.dispatch,
      worktree: options.worktreeBase === null ? null : { base: options.worktreeBase, dir: '.waves/worktrees' },
    });
    const cwd = dispatch.worktree ? path.join(options.root, dispatch.worktree.path) : options.root;
    // The record comes before the leases, naming this dispatch: killed at any moment from here on
    // (kill -9), the run is still found — stale once this process is gone — and so are the leases
    // held in its name, which waves status --reap and waves stop release.
    let record: RunRecord = {
      v: 1, id, issue: { number, title: issue.title }, wave: options.waveIndex, agent: options.agentName,
      argv: dispatch.command, cwd, model: dispatch.model, tier: issue.tier, leaseIds: [], leaseTtlMs: options.ttlMs, journal: options.journal,
      ...(leaseStore.backend === 'journal' ? {} : { leaseStore }),
      log: files.log, pidFile: files.pidFile,
      worktree: dispatch.worktree ? { path: cwd, branch: dispatch.worktree.branch, base: options.worktreeBase ?? 'HEAD' } : null,
      timeoutMs: options.timeoutMs, supervisorPid: null, pid: null, dispatcher: { pid: process.pid, start: processStart(process.pid) },
      status: 'starting', exitCode: null, signal: null, reason: null,
      startedAt: date.toISOString(), endedAt: null, dispatchId, scope: scopeOf(issue),
      passEnv: [...(options.dispatch.agent.env ?? [])], logMaxBytes: options.logMaxBytes ?? null,
      ...(options.projectConfigAllowed ? { projectConfigAllowed: true } : {}),
      ...(options.verify
        ? {
            verify: {
              commands: options.verify.commands.map((argv) => [...argv]),
              timeoutMs: options.verify.timeoutMs,
              ...(options.verify.config !== undefined ? { config: options.verify.config } : {}),
              ...(options.verify.setup ? { setup: options.verify.setup.map((argv) => [...argv]), setupTimeoutMs: options.setupTimeoutMs ?? DEFAULT_SETUP_TIMEOUT_MS } : {}),
            },
          }
        : {}),
      // Run by the supervisor in the worktree before the agent starts (worktree-setup.ts).
      ...(dispatch.setup.length > 0 ? { setup: { commands: dispatch.setup, timeoutMs: options.setupTimeoutMs ?? DEFAULT_SETUP_TIMEOUT_MS, log: setupLogOf(files.log) } } : {}),
      ...(Object.keys(dispatch.env).length > 0 ? { agentEnv: dispatch.env } : {}),
      ...(options.fence
        ? { fenceRules: { holder: runHolder(id), contentionDepth: options.rules?.contentionDepth ?? 0, serial: [...(options.rules?.serial ?? [])], onRefusal: options.fence.onRefusal } }
        : {}),
    };
    await writeRecord(files.record, record, { fixing: true });
    // Each run holds its leases in its own name: another dispatch by the same user is another holder.
    let leases;
    try {
      leases = await leaseBackend.acquire(lanes, { holder: runHolder(id), ttlMs: options.ttlMs, ...(options.rules ? { rules: options.rules } : {}) });
    } catch (error) {
      await removeRecord(files.record);
      throw error;
    }
    const refusal = leases.find((l) => l.status === 'refused');
    if (refusal && refusal.status === 'refused') {
      // Not started: no record of it.
      await removeRecord(files.record);
      emit({ type: 'refused', number, lane: refusal.heldLane, holder: refusal.holder, until: refusal.until, reason: refusal.reason, message: refusal.message });
      skipped.push({ number, reason: refusal.reason === 'overlap' ? `${refusal.heldLane} is leased by ${refusal.holder} until ${refusal.until}` : refusal.message });
      replace(number);
      return;
    }
    const leaseIds = leases.map((l) => l.id);
    const leaseEpochs = Object.fromEntries(leases.flatMap((l) => (l.status === 'acquired' && l.epoch !== undefined ? [[l.id, l.epoch] as const] : [])));
    await options.afterLeases?.(id);
    record = { ...record, leaseIds, ...(Object.keys(leaseEpochs).length > 0 ? { leaseEpochs } : {}) };
    await writeRecord(files.record, record, { fixing: true });
    /** Not started after all: its leases released, its record removed, the next candidate in its place. */
    const notStarted = async (reason: string): Promise<void> => {
      await releaseLeases(leaseIds);
      await removeRecord(files.record);
      emit({ type: 'skipped', number, reason });
      skipped.push({ number, reason });
      replace(number);
    };
    /** What a worktree continued held when it passed the check below: the baseline its supervisor checks again just before the agent starts. */
    let heldBefore: DirtyFile[] | null = null;
    /** How its worktree was made ready: created anew, or continued from an earlier run. */
    let prepared: Prepared | null = null;
    if (dispatch.worktree) {
      // A branch of the issue's that exists already is what its agent starts on: held to the rule
      // of the dispatch base (base-during-runs.ts), since an agent of a run not yet harvested can
      // have created or moved it (red team I3).
      const dir = path.join(options.root, dispatch.worktree.path);
      let planted = await runBranchMovedDuringRuns(options.root, options.runsDir, dispatch.worktree.branch);
      if (planted === null && existsSync(dir)) {
        if (!worktreesAtStart.has(dir)) planted = `its worktree ${dispatch.worktree.path} appeared after this dispatch started (an agent of this wave made it?): not continued`;
        else {
          heldBefore = await worktreeFiles(options.root, dir, dispatch.worktree.branch);
          if (stateIdOf(heldBefore) !== worktreesAtStart.get(dir)) planted = `its worktree ${dispatch.worktree.path} changed after this dispatch started (an agent of this wave wrote in it?): not continued`;
        }
      }
      if (planted !== null) return notStarted(planted);
      prepared = await prepareWorktree(options.root, cwd, dispatch.worktree.branch, dispatch.worktree.argv);
      if (prepared.status === 'failed') return notStarted(prepared.reason);
      if (prepared.status === 'reused') emit({ type: 'reused', number, path: dispatch.worktree.path, branch: dispatch.worktree.branch });
    }
    let start = await startOf(cwd, dispatch.worktree !== null);
    if (dispatch.worktree && start.head !== null) {
      // A branch an earlier run (or another agent) left: audited from the last commit waves witnessed.
      const audited = await auditedFrom(cwd, start.head, dispatch.worktree.argv.at(-1)!);
      if (audited === null) return notStarted(`its branch ${dispatch.worktree.branch} shares no history with ${dispatch.worktree.argv.at(-1)}: not continued (look at it, then delete or rename it)`);
      if (audited.unaudited > 0) emit({ type: 'unaudited', number, branch: dispatch.worktree.branch, commits: audited.unaudited, from: audited.commit });
      // A worktree continued: what it held when it passed the check (read once; anything written
      // since is then seen by the supervisor's check). A new one holds nothing but its commit: an
      // agent of this wave that wrote into it between its checkout and now (red team K4b, seen
      // under load) is seen by that check too, whatever it wrote when.
      const held = prepared?.status === 'created' ? [] : prepared?.status === 'reused' && heldBefore !== null ? heldBefore : await worktreeFiles(options.root, cwd, dispatch.worktree.branch);
      start = { ...start, head: audited.commit, ...(held !== null ? { tree: { head: start.head, files: held } } : {}) };
    }
    started.add(number);
    record = { ...record, start };
    records.push(files.record);
    // Stopped (waves stop) while it was starting: its record is settled, its leases released.
    const meanwhile = await readTrustedRecord(files.record).catch(() => null);
    if (meanwhile && (TERMINAL as readonly string[]).includes(meanwhile.status)) {
      await releaseLeases(leaseIds);
      skipped.push({ number, reason: `${meanwhile.status} while it was starting` });
      emit({ type: 'ended', number, record: meanwhile });
      return;
    }
    await writeRecord(files.record, record, { fixing: true });
    const child = spawn(options.supervisor[0]!, [...options.supervisor.slice(1), files.record], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      cwd: options.root,
      env: withoutTokens(process.env),
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(JSON.stringify(options.supervisorTokens ?? {}));
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    if (options.detach) child.unref();
    running.set(number, { child, recordFile: files.record, exited, since: Date.now(), stoppedSince: null });
    emit({ type: 'started', number, record });
    // Cancelled while this one was starting: stop it with the others.
    if (cancelled && child.pid) killGroup(child.pid, 'SIGTERM');
  };

  const grace = options.graceMs ?? DEFAULT_GRACE_MS;
  // Settles a run its supervisor left unsettled, once (Ctrl-C and the main loop may both ask).
  const settling = new Map<string, Promise<void>>();
  const settleOrphan = (recordFile: string, status: 'cancelled' | 'failed' | 'timed_out', reason: (record: RunRecord) => string, before?: () => Promise<void>) => {
    const once =
      settling.get(recordFile) ??
      (async () => {
        await before?.();
        const record = await readTrustedRecord(recordFile).catch(() => null);
        if (record && !(TERMINAL as readonly string[]).includes(record.status)) {
          await stopRun(recordFile, { journal: options.journal, leaseStore, now: options.now, graceMs: grace, status, reason: reason(record), askSupervisor: false });
        }
        // Settled but killed before it released them: the leases in the run's name go too.
        await releaseOwnLeases(leaseBackend, path.basename(recordFile, '.json'), clone).catch(async (error: unknown) => {
          // Never swallowed: the record says so (and waves status names the leases still held).
          const settled = await readTrustedRecord(recordFile).catch(() => null);
          if (settled === null || settled.reason?.includes('were NOT released')) return;
          const why = (error as Error).message.split('\n')[0];
          await writeRecord(recordFile, { ...settled, reason: `${settled.reason ?? settled.status}; its leases were NOT released (${why})` }).catch(() => undefined);
        });
      })();
    settling.set(recordFile, once);
    return once;
  };

  /**
   * A foreground dispatch watches its supervisors, besides their deaths: one stopped (SIGSTOP, by
   * its own agent maybe) for more than `STOPPED_LIMIT_MS`, or one whose run is past its timeout,
   * the grace and a margin without a settled record, is taken over — killed, its run's processes
   * stopped (group, markers, tracked), the record settled (`timed_out` past the timeout, else
   * `failed`, saying why) and its leases released.
   */
  const watchSupervisors = async () => {
    if (cancelled) return; // the cancellation stops them all
    const nowMs = Date.now();
    for (const entry of running.values()) {
      const { child, recordFile } = entry;
      if (settling.has(recordFile) || !isLive(child)) continue;
      entry.stoppedSince = isStopped(child.pid!) ? (entry.stoppedSince ?? nowMs) : null;
      const stopped = entry.stoppedSince !== null && nowMs - entry.stoppedSince >= STOPPED_LIMIT_MS;
      const limit = options.timeoutMs === null ? null : entry.since + Math.min(options.timeoutMs, MAX_DURATION_MS);
      const overdue = limit !== null && nowMs > limit + grace + OVERDUE_MARGIN_MS;
      if (!stopped && !overdue) continue;
      if (!stopped) {
        // Past the deadline, but it may be settling right now: only an unsettled run is taken over.
        const record = await readTrustedRecord(recordFile).catch(() => null);
        if (!record || (TERMINAL as readonly string[]).includes(record.status) || settling.has(recordFile)) continue;
      }
      const status = limit !== null && nowMs > limit ? 'timed_out' : 'failed';
      const why = stopped
        ? `was stopped (SIGSTOP) for more than ${STOPPED_LIMIT_MS / 1000} s`
        : `had not settled the run ${Math.round((grace + OVERDUE_MARGIN_MS) / 1000)} s after its timeout`;
      void settleOrphan(recordFile, status, () => `its supervisor (pid ${child.pid}) ${why}; waves dispatch stopped the run`, async () => {
        // A stopped process dies of SIGKILL too; then it cannot wake up to race waves for the record.
        if (isLive(child)) child.kill('SIGKILL');
        await entry.exited;
      });
    }
  };

  let cancelling: Promise<void> | null = null;
  /** Stops these runs: SIGTERM to their supervisors, a wait, and waves' own stop for any left unsettled. */
  const stopAll = async (entries: Started[]) => {
    for (const { child } of entries) if (isLive(child)) killGroup(child.pid!, 'SIGTERM');
    // Each supervisor needs the grace, the check that its agent's processes are gone, and a moment
    // to settle; the wait ends as soon as they all have.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(entries.map((r) => r.exited)), new Promise((r) => (timer = setTimeout(r, grace + 5_000)))]);
    clearTimeout(timer);
    // A supervisor that did not stop in time (or had died, or was killed before it could listen):
    // stop its agent and settle the record here.
    await Promise.all(
      entries.map(async ({ child, recordFile }) => {
        if (isLive(child)) killGroup(child.pid!, 'SIGKILL');
        await settleOrphan(recordFile, 'cancelled', () => 'cancelled; its supervisor did not answer');
      }),
    );
  };
  const cancel = async () => {
    cancelled = true;
    emit({ type: 'cancelling', running: [...running.keys()] });
    await stopAll([...running.values()]);
  };
  const onAbort = () => {
    cancelling ??= cancel();
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  if (options.detach && options.concurrency < queue.length) {
    throw new Error(`--detach starts every agent at once: --concurrency ${options.concurrency} is below the ${queue.length} issues of wave ${options.waveIndex}`);
  }
  let watching = false;
  const watchdog = options.detach
    ? null
    : setInterval(() => {
        if (watching) return;
        watching = true;
        void watchSupervisors().finally(() => (watching = false));
      }, WATCH_MS);
  try {
    while ((queue.length > 0 || running.size > 0) && !cancelled) {
      while (queue.length > 0 && running.size < options.concurrency && !cancelled) await start(queue.shift()!);
      if (options.detach) {
        // Every agent is started at once; a replacement only ever takes a skipped issue's place.
        if (queue.length === 0 || running.size >= options.concurrency) break;
        continue;
      }
      if (running.size === 0) break;
      // Wait for a run to end, then start the next.
      const ended = await Promise.race([...running.entries()].map(([n, r]) => r.exited.then(() => n)));
      const entry = running.get(ended)!;
      if (cancelled) break; // cancel() settles what is left
      running.delete(ended);
      // A supervisor gone without settling its run (killed): its agent may still run, unwatched.
      await settleOrphan(entry.recordFile, 'failed', (r) => `its supervisor (pid ${r.supervisorPid ?? entry.child.pid}) died (${describeExit(entry.child)}); waves dispatch stopped the agent`);
      const record = await readTrustedRecord(entry.recordFile).catch(() => null);
      if (record) emit({ type: 'ended', number: ended, record });
    }
    if (cancelling) {
      await cancelling;
      // Runs whose start was under way when the cancellation came were signalled as they started.
      await stopAll([...running.values()]);
      await Promise.all([...running.values()].map((r) => r.exited));
      for (const [number, entry] of running) {
        const record = await readTrustedRecord(entry.recordFile).catch(() => null);
        if (record) emit({ type: 'ended', number, record });
      }
    }
    // Detached, the dispatch ends now: not before each supervisor has written itself into its
    // record. A starting record whose dispatch is gone and which names no supervisor is stale, and
    // a `status --reap` in that window would settle a run that is just starting, and free its leases.
    if (options.detach && !cancelled) {
      const until = Date.now() + DETACH_SETTLE_MS;
      for (const entry of running.values()) {
        while (Date.now() < until && entry.child.exitCode === null && entry.child.signalCode === null) {
          const now = await readTrustedRecord(entry.recordFile).catch(() => null);
          if (now === null || now.supervisorPid !== null || (TERMINAL as readonly string[]).includes(now.status)) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    }
  } finally {
    if (watchdog) clearInterval(watchdog);
  }
  const final: RunRecord[] = [];
  for (const file of records) {
    const record = await readTrustedRecord(file).catch(() => null);
    if (record) final.push(record);
  }
  return { records: final, skipped, cancelled };
}

/** How long a detached dispatch waits, at most, for its supervisors to write themselves into their records. */
const DETACH_SETTLE_MS = 15_000;

interface Started {
  child: ChildProcess;
  recordFile: string;
  exited: Promise<void>;
  /** When its supervisor was started (Date.now()). */
  since: number;
  /** Since when its supervisor has been seen stopped, or null. */
  stoppedSince: number | null;
}

/** How often a foreground dispatch looks at its supervisors. */
const WATCH_MS = 250;
/** How long a supervisor may stay stopped (SIGSTOP) before the dispatch takes its run over. */
const STOPPED_LIMIT_MS = 3_000;
/** Past the timeout and the grace: how long a supervisor has to settle its run before the dispatch does. */
const OVERDUE_MARGIN_MS = 10_000;

const isLive = (child: ChildProcess) => child.pid !== undefined && child.exitCode === null && child.signalCode === null;

function describeExit(child: ChildProcess): string {
  return child.signalCode ? `killed by ${child.signalCode}` : `exit code ${child.exitCode ?? '?'}`;
}

type Prepared = { status: 'created' | 'reused' } | { status: 'failed'; reason: string };

/**
 * The worktree of an issue: reused when an earlier run left it on the issue's branch (a re-run
 * continues the work), checked out from the branch when only the branch is left, else created
 * with `git worktree add -b` from the base.
 */
async function prepareWorktree(root: string, dir: string, branch: string, addArgv: readonly string[]): Promise<Prepared> {
  // Hooks and fsmonitor off: an agent of an earlier run can have planted a post-checkout or a
  // reference-transaction hook in the shared git dir, which `git worktree add` would run.
  const git = (args: string[], cwd = root) => execaGit([...GIT_OPTIONS, ...args], { cwd, reject: false, stdin: 'ignore' });
  const failed = (what: string, result: { stderr: string; stdout: string }): Prepared => ({
    status: 'failed',
    reason: `${what} failed: ${gitFailure(result.stderr || result.stdout)}`,
  });
  // The agents started before this one could have planted a filter (its smudge would run at the
  // checkout) or set one in the worktree reused: the trust check again, before any git here.
  try {
    await checkGitTrust(root);
  } catch (error) {
    if (error instanceof GitTrustError) return { status: 'failed', reason: error.message };
    throw error;
  }
  // The folder itself, or one above it, may be a link an agent left: a worktree there is elsewhere.
  const blocker = await blockingAncestor(root, `${path.relative(root, dir).split(path.sep).join('/')}/x`);
  if (blocker !== null) return { status: 'failed', reason: `${blocker.path} is a ${blocker.kind === 'link' ? 'link' : 'file'}, not a folder of the repository: no worktree goes there` };
  if (existsSync(dir)) {
    // A worktree left by an earlier run is used again only while it is still this repository's
    // (an agent can re-point its .git at another repository): no git command runs in it before.
    const problem = await worktreeProblem(root, dir, branch);
    if (problem === null) return { status: 'reused' };
    if ((await lstat(path.join(dir, '.git')).catch(() => null)) !== null) return { status: 'failed', reason: `not continued: ${problem}` };
  }
  const hasBranch = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
  const result = hasBranch.exitCode === 0 ? await git(['worktree', 'add', dir, branch]) : await git(addArgv.slice(1) as string[]);
  return result.exitCode === 0 ? { status: 'created' } : failed('git worktree add', result);
}
