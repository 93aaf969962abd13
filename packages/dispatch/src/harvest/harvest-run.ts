/**
 * Witnesses one finished agent run, trusting nothing the agent says: the diff of its work tree
 * against where it started, a fence audit against the issue's planned scope (out-of-fence files
 * optionally restored, nothing else touched), the configured verification re-run by waves, and —
 * when all of that is clean and asked for — a commit of exactly the in-fence paths on the
 * issue's branch, citing the issue. The result is the record's `witness`; a run already
 * committed is never committed again.
 *
 * What it trusts comes from the record's seal (kept outside the repository), never from the copy
 * an agent could rewrite; a copy that differs, or a record without a seal, needs a person. The
 * seal also holds what else the agent could change behind the diff's back: `.git` (hooks, config),
 * the refs (ref-snapshot.ts) and the verification to run. Nested repositories are never entered
 * (find-nested-repos.ts); the revert acts through held folders only (revert-path.ts); nothing is
 * reverted or committed while a process of the run still runs.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, realpath, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import {
  auditFence,
  ConfigError,
  fenceWithCompanions,
  inFence,
  isControlFile,
  isRootFile,
  isUnnamedControlFile,
  isSourceFile,
  gitInputProblem,
  readRegularFile,
  ModuleResolver,
  scanImports,
  scopeAccuracy,
  touchedPaths,
  type ChangedPath,
  type RunAccuracy,
  type WorkspaceMember,
} from '@waves/planner';
import { renderVerify } from '../build-dispatch.js';
import { refuseForeignLock, takeLock } from '../leases/lease-journal.js';
import { openLeaseBackend } from '../leases/open-lease-backend.js';
import { isRunning, processStart } from '../runs/process-table.js';
import { processesMarkedWith } from '../runs/kill-tree.js';
import { rewrittenFields, sealFileOf } from '../runs/record-seal.js';
import { liveProcessesOf } from '../runs/run-processes.js';
import { runLeasesOf } from '../runs/run-leases.js';
import { isSameProcess, readRecord, readSeal, readSeals, stamp, TERMINAL, viewStatus, WitnessSchema, writeWitness, type RunRecord, type Witness } from '../runs/run-record.js';
import { commitInFence } from './commit-in-fence.js';
import { committedBranchProblem } from './committed-check.js';
import { describeLinks, findLinks } from './find-links.js';
import { describeNestedRepos, findNestedRepos } from './find-nested-repos.js';
import { changesSince, GitError, hashFiles, headCommit, indexFlags, MAX_FILE_BYTES, newIndexFlags, workTreeOf } from './git-changes.js';
import { changesWhatGitRuns, gitStateChanges, readGitEntries } from './git-snapshot.js';
import { changedSince, holdFiles, type HeldFiles } from './held-blobs.js';
import { heldDirsSupported, TreeRaceError } from './held-dir.js';
import { checkedVerifyDir, withVerifyTree } from './verify-tree.js';
import { lstatInTree, readTreeFile } from './path-links.js';
import { describeRefChanges, describeWavesRefChanges, readRefs, refChanges, wavesCommitsOnly, wavesRefChanges } from './ref-snapshot.js';
import { RevertError, Reverter } from './revert-path.js';
import { runVerify } from './run-verify.js';
import { worktreeProblem } from '../runs/worktree-check.js';

export interface HarvestOptions {
  /**
   * Called once the record's lock is taken, before its holder is written. For tests only: the CLI
   * sets it from WAVES_TEST_PAUSE_AFTER_LOCK, to kill a harvest at that exact point.
   */
  afterLock?: () => Promise<void>;
  root: string;
  runsDir: string;
  /** Commit the clean runs' in-fence paths. */
  commit: boolean;
  /** Restore the out-of-fence files first. */
  revertOutOfFence: boolean;
  /** The commit type (`fix`, `feat`…); default from labels: `bug` → fix, else feat. */
  commitType: string | null;
  /** Add a `Signed-off-by` trailer (DCO), as `git commit --signoff` does. */
  signoff?: boolean;
  /** Options that sign the commit as the trusted git config does (see git-trust/); none: unsigned. */
  commitSigning?: readonly string[];
  /**
   * The config's verification commands as argv templates ({paths}, {packages}) and timeout: used
   * for records without the verification sealed at dispatch (an older waves); a sealed one wins.
   */
  verify: readonly (readonly string[])[];
  verifyTimeoutMs: number;
  /** `verifyTimeoutMs` is the person's --verify-timeout: it wins over the sealed timeout too. */
  verifyTimeoutFromFlag?: boolean;
  /** The config file `verify` was read from (absolute; null: none): compared with the one sealed at dispatch only when it is the same file. */
  verifyConfig?: string | null;
  /** Bytes of each verification command's output kept in its log (`logs.maxBytes`); null or absent: no cap. */
  logMaxBytes?: number | null;
  /** Between SIGTERM and SIGKILL when a verification command is stopped. */
  graceMs?: number;
  /** Configured serial globs (root files besides the built-in ones). */
  serialGlobs: readonly string[];
  packagesOf: (paths: readonly string[]) => string[];
  /** Workspace package directories, for the accuracy at package granularity. */
  packageDirs: readonly string[];
  /** The files a file imports or is imported by, for the accuracy with imports. */
  neighbours?: (file: string) => readonly string[];
  /**
   * The repository's files and workspace packages: with them, the imports of the source files a
   * run added or changed are read from its work tree, so that "+ imports" sees a new file's edges.
   */
  repo?: { files: readonly string[]; members: readonly WorkspaceMember[] };
  /**
   * The other runs of the same dispatch: in a shared work tree, their fences claim their changes.
   * Only sealed records belong here: a rewritten fence must not claim another run's changes.
   */
  siblings: readonly RunRecord[];
  now: () => Date;
  signal?: AbortSignal;
}

export type HarvestOutcome =
  | { kind: 'pending'; record: RunRecord; why: string }
  /** git could not answer (a broken worktree, a locked index): nothing was written. */
  | { kind: 'failed'; record: RunRecord; why: string }
  | { kind: 'witnessed'; record: RunRecord; witness: Witness; already: boolean };

export class HarvestBusyError extends Error {}

/**
 * The harvest lock of a record: proper-lockfile's folder beside its seal (outside the repository,
 * where an agent in the shared work tree cannot plant one), and beside it the holder — its pid and
 * start time, and the lock folder's inode — so that a lock whose harvest was killed (-9) is taken
 * over at once, not after the 30 s the library waits for a stale one. Before it takes the lock, a
 * harvest writes `<seal>.harvest.want.<pid>` (its pid and start time): a lock with no holder of its
 * own (its harvest killed between taking it and writing the holder) is taken over at once when no
 * harvest that wrote one is alive.
 *
 * NOTE: two harvests that find the same dead holder at the same instant both remove its lock; the
 * one that makes the new lock first wins and the other finds it held — unless the new lock gets
 * the inode number of the old one between the second's look and its removal (not seen in tests).
 */
async function lockRecord(file: string, afterLock?: () => Promise<void>): Promise<{ release: () => Promise<void>; compromised: () => Error | null }> {
  const seal = await sealFileOf(file);
  const lockPath = `${seal}.harvest.lock`;
  const holderPath = `${seal}.harvest.holder`;
  let compromised: Error | null = null;
  const take = () =>
    lockfile.lock(file, {
      realpath: false,
      lockfilePath: lockPath,
      stale: 30_000,
      update: 5_000,
      retries: 0,
      onCompromised: (error: Error) => {
        compromised = error;
      },
    });
  await mkdir(path.dirname(seal), { recursive: true, mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`the folder of its seals ${path.dirname(seal)} cannot be made (${error.code ?? error.message}): something other than a folder stands there`);
  });
  const what = `the run record ${path.basename(file)}`;
  await refuseForeignLock(lockPath, what);
  // Announced before the lock is taken: a lock found with no holder is a live harvest's only while
  // the harvest that announced itself lives (see wantingAlive).
  const wantPath = path.join(path.dirname(seal), `${wantPrefix(seal)}${process.pid}`);
  await writeFile(wantPath, `${JSON.stringify({ pid: process.pid, start: processStart(process.pid), ino: 0 })}\n`, { mode: 0o600 }).catch(() => undefined);
  const unwant = () => rm(wantPath, { force: true }).catch(() => undefined);
  try {
    return await takeAndHold();
  } finally {
    // Once the holder is written (or the lock not taken), the announcement has done its work.
    await unwant();
  }

  async function takeAndHold(): Promise<{ release: () => Promise<void>; compromised: () => Error | null }> {
    let release: () => Promise<void>;
    try {
      release = await take();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') return takeLock(lockPath, what, () => Promise.reject(error));
      const holder = await readHolder(holderPath);
      const lock = await lstat(lockPath).catch(() => null);
      const held = holder !== null && lock !== null && lock.ino === holder.ino;
      const unheld = !held && lock !== null && !(await wantingAlive(seal));
      const gone = (held && !isSameProcess(holder)) || unheld;
      if (!gone) {
        const who = holder !== null && lock !== null && lock.ino === holder.ino ? ` (pid ${holder.pid})` : '';
        throw new HarvestBusyError(`${path.basename(file)} is being harvested by another waves harvest${who}`);
      }
      // Its harvest is gone (killed): the lock is taken over at once.
      await rmdir(lockPath).catch(() => undefined);
      try {
        release = await take();
      } catch (again) {
        if ((again as NodeJS.ErrnoException).code === 'ELOCKED') throw new HarvestBusyError(`${path.basename(file)} is being harvested by another waves harvest`);
        return takeLock(lockPath, what, () => Promise.reject(again));
      }
    }
    await afterLock?.();
    const ino = (await lstat(lockPath).catch(() => null))?.ino ?? null;
    if (ino !== null) {
      const holder = { pid: process.pid, start: processStart(process.pid), ino };
      await writeFile(holderPath, `${JSON.stringify(holder)}\n`, { mode: 0o600 }).catch(() => undefined);
    }
    return {
      compromised: () => compromised,
      release: async () => {
        // A lock taken over belongs to the other harvest now: never remove it.
        if (compromised) return;
        await rm(holderPath, { force: true }).catch(() => undefined);
        await takeLock(lockPath, what, () => release());
      },
    };
  }
}

/** `<seal>.harvest.want.<pid>`: written by each harvest (its pid and start time) before it takes the lock. */
const wantPrefix = (seal: string) => `${path.basename(seal)}.harvest.want.`;

/** Whether a harvest that announced it would take this lock is alive (this one left out). */
async function wantingAlive(seal: string): Promise<boolean> {
  const names = await readdir(path.dirname(seal)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(wantPrefix(seal)) || name === `${wantPrefix(seal)}${process.pid}`) continue;
    const want = await readHolder(path.join(path.dirname(seal), name));
    if (want !== null && isSameProcess(want)) return true;
    // A harvest gone (killed) before it removed its own: cleared.
    await rm(path.join(path.dirname(seal), name), { force: true }).catch(() => undefined);
  }
  return false;
}

async function readHolder(file: string): Promise<{ pid: number; start: number | null; ino: number } | null> {
  const read = await readRegularFile(file, { maxBytes: 4096 });
  if (!read.ok) return null;
  try {
    const value = JSON.parse(read.text) as { pid?: unknown; start?: unknown; ino?: unknown };
    if (typeof value.pid !== 'number' || !Number.isSafeInteger(value.pid) || value.pid <= 1 || typeof value.ino !== 'number') return null;
    return { pid: value.pid, start: typeof value.start === 'number' ? value.start : null, ino: value.ino };
  } catch {
    return null;
  }
}

/** Witnesses the run of a record file, holding a lock on it so that two harvests never race. */
export async function harvestRun(file: string, options: HarvestOptions): Promise<HarvestOutcome> {
  let lock: Awaited<ReturnType<typeof lockRecord>>;
  try {
    lock = await lockRecord(file, options.afterLock);
  } catch (error) {
    if (error instanceof HarvestBusyError || error instanceof ConfigError) throw error;
    // The state folder or the lock is not what waves made (an agent that reads WAVES_STATE_DIR…): this run needs a person, the rest of the wave goes on.
    const record = (await readSeal(file).catch(() => null)) ?? (await readRecord(file).catch(() => null));
    if (record === null) throw error;
    return unwritten(record, options, `it could not be locked for the harvest (${firstLine(error)}): nothing was diffed, reverted, verified or committed`);
  }
  const compromisedNow = () => lock.compromised();
  try {
    // The repository's copy may be gone or garbled: then the seal alone speaks (and says so).
    const copy = await readRecord(file).catch(() => null);
    let sealed: RunRecord | null = null;
    let unsealed: string | null = null;
    try {
      sealed = await readSeal(file);
      if (sealed === null) {
        unsealed = `its run record has no sealed copy in ${path.dirname(await sealFileOf(file))} (dispatched by an older waves, or the seal was deleted): its fence, start and work tree cannot be trusted, nothing was diffed, reverted, verified or committed`;
      }
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      unsealed = `its sealed copy cannot be read (${(error as Error).message.split('\n')[0]}): nothing was diffed, reverted, verified or committed`;
    }
    // Neither copy readable: reading the copy again throws what is wrong with it.
    const record = sealed ?? copy ?? (await readRecord(file));
    const view = viewStatus(record);
    if (!(TERMINAL as readonly string[]).includes(view)) {
      const why = view === 'stale' ? 'stale: its processes are gone and it never settled (waves status --reap settles it)' : `still ${view}`;
      return { kind: 'pending', record, why };
    }
    // Only a seal's word counts for "already committed": a copy's witness is the agent's to forge.
    if (sealed?.witness?.commit) {
      // …as long as its branch still holds that commit: another run's agent can move or delete it.
      const problem = await committedBranchProblem(options.root, sealed, (await readSeals(options.runsDir)).values());
      if (problem === null) return { kind: 'witnessed', record: sealed, witness: sealed.witness, already: true };
      const witness: Witness = { ...sealed.witness, status: 'needs_person', reasons: [...sealed.witness.reasons, problem] };
      return { kind: 'witnessed', record: { ...sealed, witness }, witness, already: true };
    }
    let witness: Witness;
    if (sealed === null) witness = emptyWitness(record, options, [unsealed!]);
    else {
      const rewritten = await rewrittenSince(file, sealed, copy);
      const distrust = rewritten.length > 0 ? [`its run record was rewritten after dispatch: ${rewritten.join(', ')} differ(s) from its seal; the sealed values were used and nothing is committed`] : [];
      // A FIFO where git opens a file (an ignore file in the agent's fence) would block harvest's git for good.
      const blocked = await gitInputProblem(sealed.worktree ? sealed.worktree.path : options.root, [], { deep: true });
      if (blocked !== null) witness = emptyWitness(record, options, [...distrust, `nothing was diffed, reverted, verified or committed: ${blocked}`]);
      else try {
        witness = await witnessRun(sealed, options, distrust, `${await sealFileOf(file)}.harvest.commit`);
      } catch (error) {
        if (error instanceof GitError || error instanceof RevertError || error instanceof TreeRaceError) return { kind: 'failed', record, why: firstLine(error) };
        if (isFileSystemError(error)) return { kind: 'failed', record, why: `a file-system error while witnessing it (did something change its work tree meanwhile?): ${firstLine(error)}` };
        throw error;
      }
    }
    // Interrupted: what was seen is incomplete, so the record keeps what it had.
    if (options.signal?.aborted) return { kind: 'pending', record, why: 'interrupted before its witness was complete' };
    if (compromisedNow()) return { kind: 'failed', record, why: 'its record lock was taken over while this harvest was stalled for more than 30 s: the witness was not written; harvest it again' };
    // Written from the seal: the repository's copy gets the sealed values back.
    let next: RunRecord;
    try {
      next = await writeWitness(file, record, witness);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      // A seal replaced meanwhile (a FIFO, a folder…): the run needs a person; the rest of the wave goes on.
      const said = witness.reasons.some((r) => r.startsWith('its sealed copy cannot be read'));
      return unwritten(record, options, said ? null : `its witness could not be written (${firstLine(error)})`, witness);
    }
    return { kind: 'witnessed', record: next, witness, already: false };
  } finally {
    await lock.release();
  }
}

/**
 * The trusted fields in which the repository's copy differs from the seal. The supervisor writes
 * the seal just before the copy: a difference is read again once, a moment later, before it counts.
 */
async function rewrittenSince(file: string, sealed: RunRecord, copy: RunRecord | null): Promise<string[]> {
  if (copy === null) return ['the whole record (the copy in the repository is gone or unreadable)'];
  const first = rewrittenFields(sealed, copy);
  if (first.length === 0) return first;
  await new Promise((resolve) => setTimeout(resolve, 250));
  const again = await readRecord(file).catch(() => null);
  return again === null ? first : rewrittenFields(sealed, again);
}

/** The outcome of a run whose witness could not be written: it needs a person, for this reason too. */
function unwritten(record: RunRecord, options: HarvestOptions, reason: string | null, seen?: Witness): HarvestOutcome {
  const base = seen ?? emptyWitness(record, options, []);
  const witness: Witness = { ...base, status: 'needs_person', commit: base.commit, reasons: reason === null ? base.reasons : [...base.reasons, reason] };
  return { kind: 'witnessed', record, witness, already: false };
}

/** A witness of nothing: the run could not be looked at, for these reasons. */
function emptyWitness(record: RunRecord, options: HarvestOptions, reasons: string[]): Witness {
  return {
    at: options.now().toISOString(), base: null, attributed: record.worktree !== null, changed: [], inFence: [], outOfFence: [], reverted: [], verify: [], commit: null,
    status: 'needs_person', reasons, notes: [], accuracy: keptAccuracy(scopeAccuracy([], [])),
  };
}

const list = (paths: readonly string[], max = 5) => (paths.length <= max ? paths.join(', ') : `${paths.slice(0, max).join(', ')} and ${paths.length - max} more`);


/**
 * The marker prefix of a verification this harvest runs: the repository (its root's real path,
 * hashed), the issue, and the harvest itself (its pid and start time, so a later process given the
 * same pid is not taken for it).
 */
async function verifyMarker(root: string, issue: number): Promise<string> {
  const real = await realpath(root).catch(() => path.resolve(root));
  return `verify-${createHash('sha256').update(real).digest('hex').slice(0, 8)}-${issue}-h${process.pid}.${processStart(process.pid) ?? 0}-`;
}

/**
 * Stops the verification a killed harvest of this issue, in this repository, left running (a
 * watch mode, a server): the processes marked `verify-<repo>-<N>-h<pid>.<start>-…` whose harvest
 * (that pid, started then) is gone, wherever they went — never a verification another harvest,
 * alive, is running. SIGTERM, the grace, SIGKILL; their pids.
 */
async function stopLeftoverVerification(marker: string, graceMs = 5_000): Promise<number[]> {
  const prefix = marker.replace(/h\d+\.\d+-$/, 'h');
  const leftovers = () =>
    processesMarkedWith(prefix)
      .filter(({ marker }) => {
        const at = /^verify-[0-9a-f]{8}-\d+-h(\d+)\.(\d+)-/.exec(marker);
        if (!at) return false;
        const pid = Number(at[1]);
        if (!Number.isSafeInteger(pid) || pid === process.pid) return false;
        return !isRunning(pid) || processStart(pid) !== Number(at[2]);
      })
      .map(({ pid }) => pid);
  const found = leftovers();
  if (found.length === 0) return [];
  const signal = (sig: NodeJS.Signals) => found.forEach((pid) => {
    try {
      process.kill(pid, sig);
    } catch {
      // gone
    }
  });
  signal('SIGTERM');
  const until = Date.now() + graceMs;
  while (Date.now() < until && leftovers().length > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  if (leftovers().length > 0) signal('SIGKILL');
  return found;
}

/**
 * `intent`: where the harvest notes the commit it is about to put on the branch (beside the seal,
 * in waves' state): only that one is adopted by a later harvest of the run, never a commit its
 * agent made with its trailer.
 */
async function witnessRun(record: RunRecord, options: HarvestOptions, distrust: readonly string[], intent: string): Promise<Witness> {
  const reasons: string[] = [...distrust];
  const notes: string[] = [];
  const scope = record.scope;
  // What the agent may change: its fence, the paths its live fence granted while it ran (read
  // from the sealed record, never from anything the agent wrote), and the lockfiles of the manifests in it.
  const extensions = (record.fence?.extensions ?? []).map((e) => e.path);
  const declared = [...(scope?.fence ?? []), ...extensions];
  const fence = fenceWithCompanions(declared);
  const worktree = record.worktree;
  const cwd = worktree ? worktree.path : options.root;
  const empty = (...why: string[]): Witness => emptyWitness(record, options, [...reasons, ...why]);
  const where = path.relative(options.root, cwd) || '.';
  const here = await lstat(cwd).catch(() => null);
  if (here === null) return empty(`its work tree ${where} is gone`);
  // A worktree reached through a link (the folder, or one above it, replaced) is somewhere else.
  const real = await realpath(cwd).catch(() => null);
  if (!here.isDirectory() || real !== path.join(await realpath(options.root), path.relative(options.root, cwd))) {
    return empty(`its work tree ${where} is no longer a folder of the repository (a link or a file now stands there): nothing there can be witnessed`);
  }
  // Before git runs there: what an agent planted in .git (a hook, a config, excludes) runs or hides
  // things when git runs. Read from the paths recorded at dispatch, without asking git.
  const gitAtStart = record.start?.git;
  if (gitAtStart === undefined || gitAtStart === null) {
    reasons.push('its record has no snapshot of .git from dispatch (dispatched by an older waves): a change there (hooks, config) cannot be seen');
  } else {
    const changedGit = gitStateChanges(gitAtStart.entries, await readGitEntries(cwd, gitAtStart.gitDir, gitAtStart.commonDir));
    if (changedGit.length > 0) {
      const what = `.git changed during the run: ${list(changedGit.map((c) => `${c.entry} ${c.change}`))} (waves runs git with hooks off; remove what the agent left there)`;
      // A work tree whose own .git went or now points elsewhere: git there answers for another repository.
      if (changedGit.some((c) => c.entry === '.git')) return empty(`${where} is no longer a git work tree of its own (its .git is gone or moved): nothing there can be witnessed`, what);
      // After a change of what git runs (config, attributes, where the repository is), waves runs no git there at all.
      if (changedGit.some((c) => changesWhatGitRuns(c.entry))) return empty(what, 'nothing was diffed, reverted, verified or committed: git there would now run what the agent configured');
      reasons.push(what);
    }
  }
  // A worktree whose .git (or its registration) now leads to another repository: git there would
  // diff, run and commit in that one. Checked from files before any git command runs there.
  if (worktree) {
    const problem = await worktreeProblem(options.root, cwd, null);
    if (problem !== null) return empty(`${problem}: nothing there was diffed, reverted, verified or committed`);
  }
  // The work tree must still be a git work tree of its own: a worktree whose .git an agent removed
  // would otherwise answer for the repository around it (and a revert or commit would land there).
  const top = await workTreeOf(cwd);
  if (top.kind !== 'top') {
    if (!worktree) return empty(top.kind === 'outside' ? 'the root is not a git work tree: there is no diff to witness' : `the root is not the top of its git repository (${top.top}): run waves from there`);
    return empty(`${path.relative(options.root, cwd)} is no longer a git work tree of its own (its .git is gone or moved): nothing there can be witnessed`);
  }
  // Refs an agent moved — a commit put on main, the shared tree switched to its branch — show in no diff.
  const refsAtStart = record.start?.refs;
  if (!refsAtStart) reasons.push('its record has no snapshot of the refs from dispatch (dispatched by an older waves): a branch it moved cannot be seen');
  else {
    const ownCommits = async () => new Set([...(await readSeals(options.runsDir)).values()].flatMap((r) => (r.witness?.commit ? [r.witness.commit.sha] : [])));
    const refsNow = await readRefs(options.root, worktree ? cwd : null);
    // Without a worktree, the branch may also carry the commit of this run a killed harvest made:
    // the one it noted in waves' state before it moved the branch (its content is in the diff
    // since the start, and it is adopted only when its tree is the one verified:
    // commit-in-fence.ts). Never one by its Waves-Run trailer alone: the agent knows its run's id
    // and can write that trailer on a commit of its own (red team E07).
    const noted = async () => ((await readFile(intent, 'utf8').catch(() => '')).trim() || null);
    const advance = worktree
      ? wavesCommitsOnly(options.root, ownCommits)
      : wavesCommitsOnly(options.root, async () => {
          const left = await noted();
          return new Set([...(await ownCommits()), ...(left !== null ? [left] : [])]);
        });
    const moved = await refChanges(refsAtStart, refsNow, advance);
    if (moved.length > 0) reasons.push(describeRefChanges(moved));
    // Another run's branch (waves/issue-M) moved or deleted: excused only when its owner ran at
    // some time since this run started (its own harvest witnesses it), or the move is waves' commits.
    const seals = [...(await readSeals(options.runsDir)).values()];
    const since = Date.parse(record.startedAt);
    const wavesMoved = await wavesRefChanges(refsAtStart, refsNow, worktree?.branch ?? null, async (ref, from, to) => {
      const owners = seals.filter((r) => r.id !== record.id && r.worktree && `refs/heads/${r.worktree.branch}` === ref);
      if (owners.some((r) => !(TERMINAL as readonly string[]).includes(r.status) || r.endedAt === null || Date.parse(r.endedAt) >= since)) return true;
      return from !== null && (await wavesCommitsOnly(options.root, ownCommits)(from, to));
    });
    if (wavesMoved.length > 0) reasons.push(describeWavesRefChanges(wavesMoved));
  }
  // Index flags set during the run (assume-unchanged, skip-worktree) make git — and the person's
  // `git status`, `git diff`, `git commit -a` — look away from a file: the diff below compares
  // flagged files by content, and a new flag needs a person (nothing is verified or committed).
  const flagsAtStart = record.start?.flags;
  let flaggedNow: { path: string; flag: string }[] = [];
  if (flagsAtStart) {
    flaggedNow = newIndexFlags(flagsAtStart, await indexFlags(cwd));
    if (flaggedNow.length > 0) {
      reasons.push(
        `index flag(s) set during the run, which make git hide a file's changes: ${list(flaggedNow.map((f) => `${f.path} (${f.flag})`))} — check the file(s), then clear the flag(s) (git update-index --no-assume-unchanged --no-skip-worktree -- <path>) in ${where}`,
      );
    }
  }
  if (!scope) reasons.push('its record has no planned scope (dispatched by an older waves): there is no fence to audit against');
  const base = record.start ? record.start.head : await headCommit(cwd);
  const dirtyBefore = new Map((record.start?.dirty ?? []).map((d) => [d.path, d.hash]));

  /** The run's changes: in a shared work tree, without what was there before or what another run's fence claims. */
  // waves' own integration files (the agent's hook, installed in a tree where no such file was):
  // removed when the run ends, and never a change of the issue if a killed supervisor left one.
  const installed = new Set(record.fence?.installed ?? []);
  const changesOfRun = async (): Promise<ChangedPath[]> => {
    const all = (await changesSince(cwd, base)).filter((change) => !touchedPaths(change).every((p) => installed.has(p)));
    if (worktree) return all;
    const now = new Map((await hashFiles(cwd, all.flatMap(touchedPaths).filter((p) => dirtyBefore.has(p)))).map((h) => [h.path, h.hash]));
    return all.filter((change) => {
      const paths = touchedPaths(change);
      if (paths.every((p) => dirtyBefore.has(p) && dirtyBefore.get(p) === now.get(p))) return false;
      if (paths.every((p) => inFence(fence, p))) return true;
      return !options.siblings.some((s) => s.id !== record.id && paths.every((p) => inFence(fenceWithCompanions([...(s.scope?.fence ?? []), ...(s.fence?.extensions ?? []).map((e) => e.path)]), p)));
    });
  };

  const changed = await changesOfRun();
  const auditOf = (changes: readonly ChangedPath[]) => auditFence(changes, declared, { serial: scope?.serial != null, serialGlobs: options.serialGlobs });
  const first = auditOf(changed);
  // A control file (one that tools or agents run or obey) counted in the fence though the plan did
  // not put it there (an extension an older waves granted) is never witnessed clean: merged, it
  // would run at the next install, commit, verify or agent session. One outside the fence needs a
  // person as every such change does (unless reverted).
  const unwatched = record.fence?.unwatched ?? [];
  if (unwatched.length > 0) reasons.push(`the live fence's watcher could not watch ${list(unwatched.map((u) => `${u.path}/ (${u.code})`))}: writes there were not checked as they happened — check what the agent did`);
  // A control file counts as planned only where the issue itself named it: the file itself, as a
  // file leaf — not a folder of the fence holding it (a lane), not a fence the plan inferred (an
  // issue that named no path), nor a candidate it added (a guess, not a request).
  const guessed = new Set(scope?.guessed ?? []);
  const planned = scope?.inferred ? [] : fenceWithCompanions((scope?.fence ?? []).filter((p) => !guessed.has(p)));
  const controlChanged = [...new Set(first.inFence.flatMap(touchedPaths).filter((p) => isUnnamedControlFile(p, planned)))];
  if (controlChanged.length > 0) reasons.push(`it changed control file(s) its plan did not name (files that tools or agents run or obey; a folder of the fence, an extension or the plan's guess does not name one): ${list(controlChanged)} — read them before anything runs or merges there`);
  // Likewise a root file (any file at the top, the manifests, lockfiles, CI, configured serial
  // paths): every package shares it, and only an issue that names it may change it.
  const rootChanged = [...new Set(first.inFence.flatMap(touchedPaths).filter((p) => isRootFile(p, options.serialGlobs) && !isControlFile(p) && !inFence(planned, p)))];
  if (rootChanged.length > 0) reasons.push(`it changed root file(s) its plan did not name (shared by every package), in its fence only as extensions or as the plan's guess: ${list(rootChanged)}`);
  const touchedBefore = worktree ? [] : changed.flatMap(touchedPaths).filter((p) => dirtyBefore.has(p));
  if (touchedBefore.length > 0) reasons.push(`${list(touchedBefore)} had uncommitted changes before the run started: they cannot be told apart from the agent's`);

  // Agents that cannot pass a test sometimes edit or delete it: say so, and stop on a deletion.
  const deletedTests = changed.filter((c) => (c.change === 'deleted' && isTestFile(c.path)) || (c.from !== undefined && isTestFile(c.from) && !isTestFile(c.path))).map((c) => c.from ?? c.path);
  if (deletedTests.length > 0) reasons.push(`it deleted existing test(s): ${list(deletedTests)}`);
  const editedTests = changed.filter((c) => c.change === 'modified' && isTestFile(c.path)).map((c) => c.path);
  if (editedTests.length > 0) notes.push(`it edited existing test(s): ${list(editedTests)} — check they still test what they did`);

  // Links are never followed nor committed: whether reverted or in the fence, a person looks.
  const head = await headCommit(cwd);
  const links = await findLinks(cwd, base, head, changed);
  if (links.length > 0) reasons.push(describeLinks(links));
  // Nor are nested repositories entered or committed (a gitlink's content is another repository's).
  const nested = await findNestedRepos(cwd, base, head, changed);
  if (nested.length > 0) reasons.push(describeNestedRepos(nested));

  // A changed file of the fence that is a hard link shares its content with another file, maybe
  // one outside the repository the agent could link but not read; one over MAX_FILE_BYTES would
  // cost minutes to hash and a huge blob. Neither is read, verified into a blob, or committed.
  const unreadable = await unreadableFiles(cwd, first.inFence.flatMap(touchedPaths));
  if (unreadable.hardLinked.length > 0) {
    reasons.push(`${list(unreadable.hardLinked)}: a hard link — its content is shared with another file, possibly outside the repository; not committed (replace it with a copy of its own if it is meant)`);
  }
  if (unreadable.oversized.length > 0) {
    reasons.push(`${list(unreadable.oversized)}: bigger than ${MAX_FILE_BYTES / (1024 * 1024)} MiB, the most harvest reads or commits; not read nor committed`);
  }

  const reverted: string[] = [];
  let audit = first;
  /** The run's processes still alive (looked up afresh each time: a revert or a commit must not race one). */
  const lingering = () => liveProcessesOf(record);
  let running: number[] = [];
  if (options.revertOutOfFence && first.outOfFence.length > 0 && !worktree) {
    // In a shared work tree an unattributed change may be a person's, made while the agents ran.
    notes.push('not reverted: without a worktree a change outside every fence may be a person\'s');
  } else if (options.revertOutOfFence && first.outOfFence.length > 0 && !(await lstat(options.runsDir).catch(() => null))?.isDirectory()) {
    reasons.push(`not reverted: ${path.relative(options.root, options.runsDir)} is no folder (a link?), so the agent's versions would have nowhere safe to go`);
  } else if (options.revertOutOfFence && first.outOfFence.length > 0 && !heldDirsSupported()) {
    reasons.push("not reverted: the revert acts only through folders it holds open, which needs Linux's /proc/self/fd");
  } else if (options.revertOutOfFence && first.outOfFence.length > 0 && (running = lingering()).length > 0) {
    reasons.push(`not reverted: ${stillRunning(running)}`);
  } else if (options.revertOutOfFence && first.outOfFence.length > 0) {
    // Nothing is lost: each path is copied aside, as it really is, before it is restored.
    const realRoot = await realpath(options.root);
    const reverter = await Reverter.open({
      cwd, realCwd: real!, base, runsDir: options.runsDir, realRuns: path.join(realRoot, path.relative(options.root, options.runsDir)),
      backupName: `reverted-${record.issue.number}-${stamp(options.now())}`,
    }).catch((error: unknown) => Promise.reject(new RevertError(`the revert could not start: ${firstLine(error)}`)));
    const backup = reverter.backupPath(options.root, options.runsDir);
    let current = '';
    try {
      await reverter.assertFits([...new Set(audit.outOfFence.flatMap(touchedPaths).filter((f) => !inFence(fence, f)))]);
      // A restored .gitignore can bring to light files it hid: a few rounds, until nothing new shows.
      for (let round = 0; round < 3 && audit.outOfFence.some((c) => touchedPaths(c).some((f) => !inFence(fence, f) && !reverter.handled.has(f))); round++) {
        for (const change of audit.outOfFence) {
          for (const file of touchedPaths(change)) {
            if (inFence(fence, file) || reverter.handled.has(file)) continue;
            current = file;
            reverted.push(...(await reverter.revertPath(file)));
          }
        }
        current = '';
        audit = auditOf(await changesOfRun());
      }
    } catch (error) {
      // Whatever the file system said (a folder swapped under the revert, a file gone): this run's failure, in one line.
      if (error instanceof GitError && current === '') throw error;
      throw new RevertError(`the revert stopped${current ? ` at ${current}` : ''}: ${firstLine(error)}${reverter.kept ? `; what it took away before is in ${backup}` : ''}`);
    } finally {
      await reverter.close();
    }
    if (reverted.length > 0) {
      notes.push(
        `restored ${list(reverted)} as ${reverted.length === 1 ? 'it was' : 'they were'} at ${base ? base.slice(0, 12) : 'the start'}` +
          (reverter.kept ? `; the agent's version${reverted.length === 1 ? ' is' : 's are'} in ${backup}` : ''),
      );
    }
  }
  if (audit.outOfFence.length > 0) {
    const roots = audit.outOfFence.filter((c) => c.root).map((c) => c.path);
    reasons.push(
      `${audit.outOfFence.length} file(s) changed outside the fence: ${list(audit.outOfFence.map((c) => c.path))}` +
        (roots.length > 0 ? `; root file(s) ${list(roots)} by an issue that does not run alone` : '') +
        (worktree ? '' : ' (no worktree: the change may be another run\'s or a person\'s)'),
    );
  }
  if (record.status !== 'succeeded') {
    reasons.push(`the agent ${record.status.replace('_', ' ')}${record.exitCode !== null ? ` (exit code ${record.exitCode})` : ''}${record.reason ? `: ${record.reason}` : ''}`);
  }
  if (changed.length === 0) reasons.push('the agent changed nothing');
  const fenced = await leaseFenceProblem(record, options.now);
  if (fenced !== null) reasons.push(fenced);

  const verify: Witness['verify'] = [];
  // What runs is what was in force at dispatch (sealed): an agent in the shared work tree can
  // rewrite the config, and its commands would run as the person.
  const verification = verificationOf(record, options);
  if (verification.note) notes.push(verification.note);
  /** The in-fence files as verification is about to see them (blobs written), for the commit. */
  let held: HeldFiles | null = null;
  let verifyDir: Awaited<ReturnType<typeof checkedVerifyDir>> | null = null;
  if (verification.commands.length === 0) reasons.push(`no verify commands in waves.config.json${record.verify ? ' at dispatch' : ''}: nothing checked the work`);
  else if (flaggedNow.length > 0) reasons.push('verification not run: index flags set during the run hide what the files hold from git');
  else if (audit.outOfFence.length > 0) {
    // Verification runs as the person, and what it runs can be what the run changed outside its
    // fence (package.json's scripts.test behind `npm test`, a config it loads): not while that remains.
    reasons.push(
      worktree
        ? 'verification not run: out-of-fence changes remain (revert them with --revert-out-of-fence)'
        : 'verification not run: out-of-fence changes remain (without a worktree waves does not revert them: undo them yourself)',
    );
  } else if (unreadable.hardLinked.length > 0 || unreadable.oversized.length > 0) {
    reasons.push('verification not run: the files named above cannot be read into the tree it runs in');
  } else if (audit.inFence.length > 0 && (verifyDir = await checkedVerifyDir(options.root)).problem !== undefined) {
    reasons.push(`verification not run: the folder of the clean tree it runs in cannot be trusted: ${verifyDir.problem} (chmod o-w it, or set WAVES_STATE_DIR)`);
  } else if (audit.inFence.length > 0 && verifyDir?.dir !== undefined) {
    const inFencePaths = audit.inFence.flatMap(touchedPaths);
    held = await holdFiles(cwd, inFencePaths, true);
    // A harvest killed while it verified left its verification running (a watch mode, a server):
    // stopped before this one starts, and named.
    const marker = await verifyMarker(options.root, record.issue.number);
    const leftover = await stopLeftoverVerification(marker, options.graceMs);
    if (leftover.length > 0) notes.push(`stopped ${leftover.length} process(es) an earlier harvest's verification left running (that harvest was killed): ${leftover.join(', ')}`);
    const stamped = stamp(options.now());
    const log = path.join(options.runsDir, `verify-${record.issue.number}-${stamped}.log`);
    const commands = verification.commands.map((argv) => renderVerify(argv, declared, options.packagesOf(declared)));
    const run = (argv: readonly (readonly string[])[], dir: string, logFile: string, timeoutMs: number, env?: NodeJS.ProcessEnv) =>
      runVerify(argv, { cwd: dir, log: logFile, timeoutMs, maxBytes: options.logMaxBytes ?? null, graceMs: options.graceMs, markerPrefix: marker, ...(options.signal ? { signal: options.signal } : {}), ...(env ? { env } : {}) });
    // In a clean tree of its own: the commit the run started from and the in-fence files held for
    // the commit, set up as the dispatch sealed it — never the agent's tree, whose ignored and
    // untracked files no diff shows, nor its commits, which may hold what it put back in its files
    // (a test script committed, the file restored): only what the audit saw is verified.
    await withVerifyTree(options.root, verifyDir.dir, cwd, base, held, record.id, async (dir) => {
      const setup = record.verify?.setup ?? record.setup?.commands ?? [];
      if (setup.length > 0) {
        const setupLog = path.join(options.runsDir, `verify-${record.issue.number}-${stamped}.setup.log`);
        // HUSKY=0 as in a worktree's setup (supervise.ts): an install's `prepare` would write the hooks path into the repository's git config.
        const failed = (await run(setup, dir, setupLog, record.verify?.setupTimeoutMs ?? record.setup?.timeoutMs ?? verification.timeoutMs, { ...process.env, HUSKY: '0' })).find((r) => r.status !== 'passed');
        if (failed) {
          reasons.push(`verification not run: the setup of the clean tree it runs in ${failed.status.replace('_', ' ')}: ${failed.argv.join(' ')}${failed.exitCode !== null ? ` (exit code ${failed.exitCode})` : ''}, see ${path.relative(options.root, setupLog)}`);
          return;
        }
      }
      verify.push(...(await run(commands, dir, log, verification.timeoutMs)));
    });
    const bad = verify.find((v) => v.status !== 'passed');
    if (bad) reasons.push(`verification ${bad.status.replace('_', ' ')}: ${bad.argv.join(' ')}${bad.exitCode !== null ? ` (exit code ${bad.exitCode})` : ''}, see ${path.relative(options.root, bad.log)}`);
    // What is committed is what the tree holds now: verification (a build) or a session still
    // running may have changed it while waves verified.
    const before = audit;
    audit = auditOf(await changesOfRun());
    const known = new Set(before.outOfFence.map((c) => c.path));
    const appeared = audit.outOfFence.filter((c) => !known.has(c.path)).map((c) => c.path);
    if (appeared.length > 0) reasons.push(`${list(appeared)} changed outside the fence while waves verified (the verification, or something still writing in the work tree)`);
    const newInside = audit.inFence.map((c) => c.path).filter((p) => !before.inFence.some((c) => c.path === p));
    if (newInside.length > 0) notes.push(`${list(newInside)} appeared inside the fence while waves verified (a build output?)${held !== null ? ': not committed (the commit holds what verification checked)' : ''}`);
    // What is committed is what was verified: a file changed meanwhile (a process the agent left,
    // writing still) holds content nobody checked.
    if (held !== null) {
      const after = changedSince(held, await holdFiles(cwd, inFencePaths, false));
      if (after.length > 0) reasons.push(`${list(after)} changed after verification (something still writes in the work tree): what verification checked is not what is there now, nothing is committed`);
    }
  }

  // A process of the run still alive may be writing in the tree: nothing is committed under it.
  if (options.commit && (running = lingering()).length > 0 && !reasons.some((r) => r.startsWith('not reverted: a process'))) reasons.push(`not committed: ${stillRunning(running)}`);
  let commit: Witness['commit'] = null;
  if (options.commit && reasons.length === 0 && held !== null) {
    const outcome = await commitInFence(record, cwd, held, fence, options.commitType, options.signoff ?? false, options.commitSigning ?? [], intent);
    if (outcome.kind === 'committed') {
      commit = outcome.commit;
      if (outcome.adopted) notes.push(`adopted ${outcome.commit.sha.slice(0, 10)}: a commit of this run (its Waves-Run trailer) holding exactly what was verified, left by a harvest stopped before it wrote its witness`);
    } else if (outcome.kind === 'nothing') notes.push(outcome.why);
    else reasons.push(outcome.why);
  }

  const neighbours = await withFreshImports(cwd, changed, options);
  const accuracy = scopeAccuracy(scope?.leaves ?? [], changed.flatMap(touchedPaths), options.packageDirs, neighbours);
  return {
    at: options.now().toISOString(),
    base,
    attributed: worktree !== null,
    changed,
    inFence: first.inFence.flatMap(touchedPaths),
    outOfFence: first.outOfFence,
    ...(extensions.length > 0 ? { extensions } : {}),
    reverted,
    verify,
    commit,
    status: reasons.length === 0 ? 'clean' : 'needs_person',
    reasons,
    notes,
    accuracy: keptAccuracy(accuracy),
  };
}

/** The regular files among `paths` that are hard links (more than one name), and those bigger than MAX_FILE_BYTES. */
async function unreadableFiles(cwd: string, paths: readonly string[]): Promise<{ hardLinked: string[]; oversized: string[] }> {
  const hardLinked: string[] = [];
  const oversized: string[] = [];
  for (const p of [...new Set(paths)].sort()) {
    const stat = await lstatInTree(cwd, p);
    if (!stat?.isFile()) continue;
    if (stat.nlink > 1) hardLinked.push(p);
    if (stat.size > MAX_FILE_BYTES) oversized.push(p);
  }
  return { hardLinked, oversized };
}

/** The verification to run: the one sealed at dispatch, else (an older record) the config's. */
function verificationOf(record: RunRecord, options: HarvestOptions): { commands: readonly (readonly string[])[]; timeoutMs: number; note: string | null } {
  const sealed = record.verify;
  if (!sealed) return { commands: options.verify, timeoutMs: options.verifyTimeoutMs, note: null };
  // Another file than the dispatch's (a --config of the dispatch, none now): nothing to compare.
  const sameFile = sealed.config === undefined || options.verifyConfig === undefined || sealed.config === options.verifyConfig;
  const differs = sameFile && JSON.stringify(sealed.commands) !== JSON.stringify(options.verify);
  return {
    commands: sealed.commands,
    timeoutMs: options.verifyTimeoutFromFlag ? options.verifyTimeoutMs : sealed.timeoutMs,
    note: differs ? 'the verify of waves.config.json differs from the one in force at dispatch: the one of the dispatch was run (dispatch again to run the new one)' : null,
  };
}

const stillRunning = (pids: readonly number[]) =>
  `a process of the run is still running (pid ${list(pids.map(String))}): stop it (kill ${pids.join(' ')}) and harvest again`;

/** The first line of an error's message: an outcome is one line. */
function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

/** An error of the file system (ENOENT, ELOOP…): a tree that changed while waves looked, not a bug of waves. */
function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/** A test file: `*.test.*`, `*.spec.*`, or anything under a `test`, `tests`, `__tests__` or `spec` folder. */
export function isTestFile(file: string): boolean {
  return /(?:^|\/)(?:__tests__|tests?|spec)\//.test(file) || /\.(?:test|spec)\.[cm]?[jt]sx?$/.test(file);
}

/** What a record keeps of a run's accuracy: the sums (ratios are derived when shown). */
function keptAccuracy(accuracy: RunAccuracy): Witness['accuracy'] {
  return WitnessSchema.shape.accuracy.parse(accuracy);
}

const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

/**
 * The checkout's import neighbours, plus the edges of the source files the run added or changed
 * as they are now in its work tree (read with the planner's scanner and resolver).
 */
async function withFreshImports(cwd: string, changed: readonly ChangedPath[], options: HarvestOptions): Promise<((file: string) => readonly string[]) | undefined> {
  const base = options.neighbours;
  if (!options.repo) return base;
  const sources = changed.filter((c) => c.change !== 'deleted' && isSourceFile(c.path)).map((c) => c.path);
  if (sources.length === 0) return base;
  const files = [...new Set([...options.repo.files, ...sources])].sort();
  const resolver = new ModuleResolver({ root: cwd, files, members: options.repo.members });
  const extra = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    if (!extra.has(a)) extra.set(a, new Set());
    extra.get(a)!.add(b);
  };
  for (const file of sources) {
    // Only a regular file of the tree, of a source file's size: never a link (to /dev/zero, say).
    const content = await readTreeFile(cwd, file, MAX_SOURCE_BYTES);
    if (content === null) continue;
    const text = content.toString('utf8');
    for (const { specifier } of scanImports(text, file)) {
      const target = resolver.resolve(specifier, file);
      if (target.kind !== 'file' || target.path === file) continue;
      link(file, target.path);
      link(target.path, file);
    }
  }
  return (file) => [...(base?.(file) ?? []), ...(extra.get(file) ?? [])];
}

/**
 * The fencing check of a run: its supervisor confirmed, when the agent ended and before releasing
 * them, that every lease of the run — the planned ones and those of the paths its live fence added
 * — was still held with the token it was acquired with; and, on the git remote, the remote asked
 * again now holds none of them under another token. Otherwise another machine or run may have
 * worked on the same paths meanwhile: a person decides. Null when all is well (a journal run of an
 * older waves, with no check in its record, is taken as its keeper's watch left it).
 */
async function leaseFenceProblem(record: RunRecord, now: () => Date): Promise<string | null> {
  const { ids, epochs } = runLeasesOf(record);
  if (ids.length === 0) return null;
  if (record.leaseEnd && !record.leaseEnd.held) return `its lease was lost before the agent ended (${record.leaseEnd.detail ?? 'fencing check failed'}): another machine or run may have worked on the same paths`;
  const store = record.leaseStore;
  if (store?.backend !== 'git') {
    if (!record.leaseEnd && record.status === 'succeeded' && ids.length > record.leaseIds.length) return 'the leases of the paths its live fence added were never confirmed held when the agent ended (no fencing check in its record)';
    return null;
  }
  if (!record.leaseEnd && record.status === 'succeeded') return 'its leases were never confirmed held when the agent ended (no fencing check in its record)';
  let live;
  try {
    live = (await openLeaseBackend(store, now).list()).leases;
  } catch (error) {
    return `its leases could not be re-checked on the remote (${firstLine(error)}): nothing is committed until they can`;
  }
  for (const id of ids) {
    const lease = live.find((l) => l.id === id);
    const epoch = epochs[id];
    if (lease && epoch !== undefined && lease.epoch !== epoch) return `stale fencing token: lease ${id} on ${lease.lane} now carries token ${lease.epoch ?? 'none'}, the run's was ${epoch}`;
  }
  return null;
}
