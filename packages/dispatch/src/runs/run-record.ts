/**
 * Run records: one JSON file per agent run under `.dispatch-runs/`, beside its log and pid file,
 * written atomically (a temporary file renamed over the old one) so that a reader never sees
 * half a record. Every run ends in a terminal status; one whose processes vanished without it is
 * stale until `waves status --reap` settles it. Every write goes to the record's seal first
 * (record-seal.ts), outside the repository, then to the copy beside the log.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, readRegularFile } from '@waves/planner';
import { isRunning, processStart } from './process-table.js';
import { LeaseStoreSchema } from '../leases/open-lease-backend.js';
import { NotAFolderError, RunsDir } from './held-log.js';
import { FIXED_AT_DISPATCH, readSealText, sealedNames, sealFileOf, writeSealText } from './record-seal.js';

export const RUNS_DIR = '.dispatch-runs';
/** `fenced`: the run was stopped because its agent wrote where a live fence refused it (`fence.onRefusal: stop`). */
export const TERMINAL = ['succeeded', 'failed', 'timed_out', 'cancelled', 'fenced'] as const;
export type TerminalStatus = (typeof TERMINAL)[number];

const ScopeSourceSchema = z.enum(['title', 'body', 'label', 'config']);

/** What the plan predicted the run would touch, kept for the harvest's fence audit and accuracy. */
export const RunScopeSchema = z.object({
  /** The fence: the issue's planned paths (directory leaves end with `/`). */
  fence: z.array(z.string()),
  lanes: z.array(z.string()),
  /** Why the issue runs alone, or null. */
  serial: z.string().nullable(),
  labels: z.array(z.string()),
  /** The predicted leaves before any granularity roll-up, each with the sources that named it. */
  leaves: z.array(z.object({ path: z.string(), sources: z.array(ScopeSourceSchema) })),
  /** Whether the plan inferred the whole fence (the issue named no path). */
  inferred: z.boolean().optional(),
  /** Leaves the plan inferred (candidates added to what the issue named), directories with `/`. */
  guessed: z.array(z.string()).optional(),
});

const HeadStateSchema = z.object({ branch: z.string().nullable(), commit: z.string().nullable() });

/** Where the run's work tree stood when it started: what the harvest diffs against. */
export const RunStartSchema = z.object({
  head: z.string().nullable(),
  /** Files already uncommitted then (runs without worktrees), with their content's blob id. */
  dirty: z.array(z.object({ path: z.string(), hash: z.string().nullable() })),
  /**
   * The git files that decide what git runs or hides (hooks, config, info/, the work tree's own
   * config and pointers), as they were when the run started: the harvest reports any change.
   */
  git: z
    .object({
      gitDir: z.string(),
      commonDir: z.string(),
      /** Each entry (a path relative to the common git dir, or `.git` for the work tree's own) and its digest. */
      entries: z.record(z.string(), z.string()),
    })
    .nullable()
    .optional(),
  /**
   * The index entries of the run's work tree flagged assume-unchanged or skip-worktree when it
   * started: a flag set since makes git look away from a file's changes (the harvest needs a person).
   */
  flags: z
    .array(z.object({ path: z.string(), flag: z.enum(['assume-unchanged', 'skip-worktree', 'assume-unchanged+skip-worktree']) }))
    .nullable()
    .optional(),
  /**
   * A worktree run's tree as it was when the run started, before its setup: its HEAD commit and its
   * uncommitted files with their content's ids (worktree-reuse.ts). The supervisor starts the agent
   * only if no control file (an AGENTS.md, a .claude/settings.json…) changed since, nor HEAD: another
   * agent could have written them in the meantime (red team K3, K4).
   */
  tree: z
    .object({ head: z.string().nullable(), files: z.array(z.object({ path: z.string(), hash: z.string().nullable() })) })
    .optional(),
  /**
   * HEAD of the root work tree and of the run's worktree (branch and commit), and the refs under
   * refs/heads (but waves' own `refs/heads/waves/`), refs/tags, refs/replace and refs/notes, as
   * they were when the run started: the harvest reports any that moved (see ref-snapshot.ts).
   */
  refs: z
    .object({
      root: HeadStateSchema,
      worktree: HeadStateSchema.nullable(),
      refs: z.record(z.string(), z.string()),
      /** waves' own run branches (`refs/heads/waves/…`): a run may move its own only. */
      waves: z.record(z.string(), z.string()).optional(),
    })
    .nullable()
    .optional(),
});

const ChangedPathSchema = z.object({ path: z.string(), change: z.enum(['added', 'modified', 'deleted', 'renamed']), from: z.string().optional() });
const TallySchema = z.object({ predicted: z.number().int(), touched: z.number().int(), changed: z.number().int(), covered: z.number().int() });

export const VerifyResultSchema = z.object({
  argv: z.array(z.string()),
  status: z.enum(['passed', 'failed', 'timed_out', 'error']),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  log: z.string(),
  /** Why it could not start (status `error`). */
  error: z.string().optional(),
});

/** What `waves harvest` witnessed of a finished run. */
export const WitnessSchema = z.object({
  at: z.string(),
  /** The commit the changes are measured from. */
  base: z.string().nullable(),
  /** False without a worktree: changes outside every run's fence cannot be told apart. */
  attributed: z.boolean(),
  /** What the agent changed (before any revert). */
  changed: z.array(ChangedPathSchema),
  inFence: z.array(z.string()),
  outOfFence: z.array(ChangedPathSchema.extend({ root: z.boolean() })),
  /** Paths the live fence added to the run's fence while it ran (counted in the fence; misses of the plan's prediction). */
  extensions: z.array(z.string()).optional(),
  reverted: z.array(z.string()),
  verify: z.array(VerifyResultSchema),
  commit: z.object({ sha: z.string(), message: z.string(), paths: z.array(z.string()) }).nullable(),
  status: z.enum(['clean', 'needs_person']),
  /** Why a person must look (empty when clean). */
  reasons: z.array(z.string()),
  /** What is worth knowing but needs nobody (nothing left to commit, a file restored…). */
  notes: z.array(z.string()),
  accuracy: TallySchema.extend({
    bySource: z.object({ title: TallySchema, body: TallySchema, label: TallySchema, config: TallySchema }),
    coveredByDir: z.number().int(),
    coveredByPackage: z.number().int(),
    coveredByImports: z.number().int().default(0),
    runs: z.number().int(),
    missed: z.array(z.string()),
    unused: z.array(z.string()),
  }),
});

/** What the supervisor's descendant tracker knows (track-descendants.ts), kept for `waves stop` and a takeover. */
export const TrackedSchema = z.object({
  boot: z.string().nullable(),
  since: z.number().int().nonnegative(),
  pids: z.array(z.object({ pid: z.number().int().positive(), start: z.number().int().nonnegative() })),
  sessions: z.array(z.number().int().positive()),
  outputs: z.array(z.string()),
  tag: z.number().int().nullable().optional(),
});

/** A process as the record names it: its pid and, where /proc tells, its start time (so that a reused pid is not it). */
export const ProcessIdentitySchema = z.object({ pid: z.number().int().positive(), start: z.number().int().nonnegative().nullable() });

/** The live fence's rules, fixed at dispatch (the plan's lease rule and the config's `fence.onRefusal`). */
export const FenceRulesSchema = z.object({
  /** The run's name in the lease journal (`<holder>/<clone>/<run id>`): extensions are leased in it. */
  holder: z.string(),
  contentionDepth: z.number().int().nonnegative(),
  serial: z.array(z.string()),
  onRefusal: z.enum(['tell', 'stop']),
});

/** Who asked for a path outside the fence: an agent's hook, the CLI, or the supervisor's watcher. */
export const FenceAskerSchema = z.enum(['claude', 'opencode', 'cli', 'watcher']);

/** A path added to the run's fence while it ran, leased in the run's name. */
export const FenceExtensionSchema = z.object({
  path: z.string(),
  at: z.string(),
  by: FenceAskerSchema,
  leaseId: z.string().nullable(),
  /** The lease's fencing token (the git table's epoch when it was granted); the journal has none. */
  epoch: z.number().int().optional(),
  reason: z.string(),
});

/** A path outside the fence that was refused, with who holds it and why. */
export const FenceRefusalSchema = z.object({
  path: z.string(),
  at: z.string(),
  by: FenceAskerSchema,
  reason: z.enum(['overlap', 'import', 'root', 'serial', 'control', 'invalid', 'own']),
  holder: z.string().nullable(),
  via: z.string().nullable(),
  message: z.string(),
});

/**
 * What the live fence did while the run ran: written by its supervisor only (sealed like every
 * record field; an agent's copy in the repository is never read back for it).
 */
export const FenceLogSchema = z.object({
  /** Integration files the run used in its tree: written by it, or found as waves writes them for another run of the tree (removed by the last run to end). */
  installed: z.array(z.string()),
  extensions: z.array(FenceExtensionSchema),
  refusals: z.array(FenceRefusalSchema),
  /** Folders the watcher could not watch (out of inotify watches or descriptors): writes there went unchecked live. */
  unwatched: z.array(z.object({ path: z.string(), at: z.string(), code: z.string() })).optional(),
});

export type RunScope = z.infer<typeof RunScopeSchema>;
export type FenceRules = z.infer<typeof FenceRulesSchema>;
export type FenceExtension = z.infer<typeof FenceExtensionSchema>;
export type FenceRefusal = z.infer<typeof FenceRefusalSchema>;
export type FenceLog = z.infer<typeof FenceLogSchema>;
export type Witness = z.infer<typeof WitnessSchema>;
export type VerifyResult = z.infer<typeof VerifyResultSchema>;

export const RunRecordSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  issue: z.object({ number: z.number().int().positive(), title: z.string() }),
  wave: z.number().int().positive(),
  agent: z.string(),
  argv: z.array(z.string()).min(1),
  cwd: z.string(),
  model: z.string().nullable(),
  tier: z.string(),
  leaseIds: z.array(z.string()),
  /** How long each lease lasts; the supervisor renews them while the agent runs. */
  leaseTtlMs: z.number().int().positive(),
  journal: z.string(),
  /** Where the leases were taken (absent in records of an older waves: the journal). */
  leaseStore: LeaseStoreSchema.optional(),
  /** The fencing token of each lease (the git table's epoch when it was acquired), by lease id. */
  leaseEpochs: z.record(z.string(), z.number().int()).optional(),
  /**
   * What the supervisor found when the agent ended, before it released the leases: whether every
   * lease was still held, with its fencing token (git backend). The harvest commits nothing of a
   * run whose leases were not.
   */
  leaseEnd: z.object({ held: z.boolean(), at: z.string(), detail: z.string().nullable() }).optional(),
  log: z.string(),
  pidFile: z.string(),
  worktree: z.object({ path: z.string(), branch: z.string(), base: z.string() }).nullable(),
  timeoutMs: z.number().int().positive().nullable(),
  /** The process that watches the agent and settles this record. */
  supervisorPid: z.number().int().nullable(),
  /** The agent's process (the leader of its own process group). */
  pid: z.number().int().nullable(),
  /** The `waves dispatch` that wrote the record (before it took the leases): while it lives, a starting run is not stale. */
  dispatcher: ProcessIdentitySchema.nullable().optional(),
  /** The run's processes the supervisor's tracker found (Linux; updated while the agent runs). */
  tracked: TrackedSchema.optional(),
  /**
   * Processes that escaped the tracker but sat in the run's tree when it ended, stopped then
   * (stray-processes.ts; Linux): each with what tied it to the tree.
   */
  strays: z.array(z.object({ pid: z.number().int().positive(), command: z.string(), where: z.string() })).optional(),
  status: z.enum(['starting', 'running', ...TERMINAL]),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  reason: z.string().nullable(),
  startedAt: z.string(),
  /** When the agent was started, after the worktree's setup and the live fence (what the run wrote in ignored files is judged from it). */
  agentStartedAt: z.string().optional(),
  endedAt: z.string().nullable(),
  /** The `waves dispatch` that started the run: the runs of one wave share it. */
  dispatchId: z.string().optional(),
  scope: RunScopeSchema.optional(),
  start: RunStartSchema.optional(),
  /** Token variables passed through to the agent (`agents.<name>.env`); the others are left out. */
  passEnv: z.array(z.string()).optional(),
  /** Bytes of output kept in the log (`logs.maxBytes`); absent or null: no cap. */
  logMaxBytes: z.number().int().positive().nullable().optional(),
  /**
   * The verification in force at dispatch (the config's `verify` and `verifyTimeout`): what the
   * harvest runs, whatever the config says by then (an agent in the shared work tree can rewrite
   * it). Absent in records of an older waves: the harvest uses the config.
   */
  /** The person's config allows the agent's own project config in the tree (`permissions.projectConfig`); absent: such a file stops the run before it starts. */
  projectConfigAllowed: z.boolean().optional(),
  verify: z
    .object({
      commands: z.array(z.array(z.string())),
      timeoutMs: z.number().int().positive(),
      /** The config file they came from (absolute; null: none): harvest compares them with the same file only. */
      config: z.string().nullable().optional(),
      /**
       * What sets up the clean tree the harvest verifies in (the config's `worktree.setup`, else the
       * lockfile's install), each with `setupTimeoutMs`: verification never runs in the agent's tree.
       */
      setup: z.array(z.array(z.string()).min(1)).optional(),
      setupTimeoutMs: z.number().int().positive().optional(),
    })
    .optional(),
  /**
   * The worktree setup fixed at dispatch (worktree-setup.ts): the commands the supervisor runs in
   * the worktree before the agent starts, each with this deadline, their output to `log`. Absent:
   * none (no worktree, or none configured).
   */
  setup: z.object({ commands: z.array(z.array(z.string()).min(1)), timeoutMs: z.number().int().positive(), log: z.string() }).optional(),
  /** How each setup command ended (as a verification result), once the setup has run. */
  setupResults: z.array(VerifyResultSchema).optional(),
  /** Variables waves set for the agent besides its own environment (opencode's per-run permissions). */
  agentEnv: z.record(z.string(), z.string()).optional(),
  /** The live fence's rules (absent in records of an older waves: no live fence). */
  fenceRules: FenceRulesSchema.optional(),
  /** What the live fence granted and refused. */
  fence: FenceLogSchema.optional(),
  witness: WitnessSchema.optional(),
});

export type RunRecord = z.infer<typeof RunRecordSchema>;

/** `2026-11-29T12:00:00.123Z` → `20261129T120000123Z`: sortable, safe in file names. */
export function stamp(date: Date): string {
  return date.toISOString().replace(/[-:.]/g, '');
}

export function runId(issue: number, date: Date): string {
  return `resolve-${issue}-${stamp(date)}`;
}

export function runFiles(runsDir: string, id: string): { record: string; log: string; pidFile: string } {
  return { record: path.join(runsDir, `${id}.json`), log: path.join(runsDir, `${id}.log`), pidFile: path.join(runsDir, `${id}.pid`) };
}

/**
 * Writes a run record: its seal first, then the repository's copy. A new record is sealed; once
 * sealed, what dispatch fixed and the harvest's witness keep their sealed values, whatever the
 * record given holds (it may have been read from a copy an agent rewrote). A record found in the
 * repository without a seal (dispatched by an older waves, or its seal deleted) stays unsealed.
 */
export async function writeRecord(file: string, record: RunRecord, options: { fixing?: boolean } = {}): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  // The dispatch writes its record in steps while it starts the run (first, before the leases;
  // then their ids; then where the run starts from): it fixes those fields, from memory.
  if (options.fixing) {
    await writeBoth(file, record, true);
    return;
  }
  const isNew = !existsSync(file);
  let sealed: RunRecord | null;
  try {
    sealed = await readSeal(file);
  } catch (error) {
    // A seal that cannot be read stays as it is (the harvest will say so); the copy is still written.
    if (error instanceof ConfigError) throw error;
    await writeBoth(file, record, false);
    return;
  }
  const next: RunRecord = sealed ? { ...record, ...pickFixed(sealed), witness: sealed.witness } : record;
  await writeBoth(file, next, sealed !== null || isNew);
}

/** Removes a record and its seal (a run the dispatch did not start after all: its lease was refused). */
export async function removeRecord(file: string): Promise<void> {
  await rm(await sealFileOf(file), { force: true }).catch(() => undefined);
  await rm(file, { force: true });
}

/** Writes the harvest's witness into a record (the seal's fields kept, when there is one). */
export async function writeWitness(file: string, record: RunRecord, witness: Witness): Promise<RunRecord> {
  const sealed = await readSeal(file);
  const next: RunRecord = { ...(sealed ?? record), witness };
  await writeBoth(file, next, sealed !== null);
  return next;
}

function pickFixed(record: RunRecord): Partial<RunRecord> {
  const out: Record<string, unknown> = {};
  for (const key of FIXED_AT_DISPATCH) if (record[key] !== undefined) out[key] = record[key];
  return out as Partial<RunRecord>;
}

async function writeBoth(file: string, record: RunRecord, seal: boolean): Promise<void> {
  const text = `${JSON.stringify(record, null, 2)}\n`;
  if (seal) await writeSealText(file, text);
  // The copy is written through the runs folder held open (O_DIRECTORY|O_NOFOLLOW, its entries
  // named through /proc/self/fd on Linux): a runs folder an agent swapped for a link (to a folder
  // of the person's) gets no copy — the seal has it — whether it was swapped before this write or
  // between a check and the write.
  let dir: RunsDir;
  try {
    dir = RunsDir.open(path.dirname(file));
  } catch (error) {
    if (error instanceof NotAFolderError) return;
    throw error;
  }
  try {
    const temp = `${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(dir.entry(temp), text, { flag: 'wx', mode: 0o644 });
    await rename(dir.entry(temp), dir.entry(path.basename(file)));
  } finally {
    dir.close();
  }
}

/** A run record is a few kilobytes: this bounds what a copy an agent replaced can make waves read. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/**
 * The repository's copy of a run record (for people and tools: an agent may have rewritten it, or
 * replaced it by a FIFO, a link or something huge — then it is not a run record, never a hang).
 */
export async function readRecord(file: string): Promise<RunRecord> {
  const read = await readRegularFile(file, { maxBytes: MAX_RECORD_BYTES });
  if (!read.ok) throw new Error(`${path.basename(file)} ${read.reason}: not a run record`);
  return RunRecordSchema.parse(JSON.parse(read.text));
}

/**
 * The record to act on (stop a process group, release leases, show a status): the sealed copy when
 * there is one — what an agent wrote into the repository's copy never reaches a signal or a lease —
 * else the repository's copy.
 */
export async function readTrustedRecord(file: string): Promise<RunRecord> {
  return (await readSeal(file).catch(() => null)) ?? (await readRecord(file));
}

/** The sealed copy of a run record, or null when it has none. */
export async function readSeal(file: string): Promise<RunRecord | null> {
  const text = await readSealText(file);
  return text === null ? null : RunRecordSchema.parse(JSON.parse(text));
}

/**
 * The sealed records of a runs directory, by file (beside the copies, whether the copy is there or
 * not: an agent that deletes or garbles its copy does not take its run out of a harvest).
 */
export async function readSeals(runsDir: string): Promise<Map<string, RunRecord>> {
  const out = new Map<string, RunRecord>();
  if (!existsSync(runsDir)) return out;
  for (const name of await sealedNames(runsDir)) {
    const file = path.join(runsDir, name);
    const sealed = await readSeal(file).catch(() => null);
    if (sealed !== null && `${sealed.id}.json` === name) out.set(file, sealed);
  }
  return out;
}

export interface RecordListing {
  /** Each record as sealed when it has a seal (see readTrustedRecord), else the repository's copy (`sealed` false: no record waves wrote, or one whose seal is gone). */
  records: { file: string; record: RunRecord; sealed: boolean }[];
  /** Files that are not run records (ignored). */
  unreadable: string[];
}

export async function readRecords(runsDir: string): Promise<RecordListing> {
  let names: string[];
  try {
    names = await readdir(runsDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], unreadable: [] };
    throw error;
  }
  const records: RecordListing['records'] = [];
  const unreadable: string[] = [];
  for (const name of names.filter((n) => /^resolve-\d+-\w+\.json$/.test(n)).sort()) {
    const file = path.join(runsDir, name);
    try {
      const sealed = await readSeal(file).catch(() => null);
      records.push(sealed ? { file, record: sealed, sealed: true } : { file, record: await readRecord(file), sealed: false });
    } catch {
      unreadable.push(file);
    }
  }
  return { records, unreadable };
}

export function isAlive(pid: number | null): boolean {
  if (pid === null || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type RunView = RunRecord['status'] | 'stale';

/** Whether the process a record names still runs: the same pid and, where /proc tells, the same start time. */
export function isSameProcess(identity: { pid: number; start: number | null } | null | undefined): boolean {
  if (!identity || !isRunning(identity.pid)) return false;
  const start = processStart(identity.pid);
  return identity.start === null || start === null || start === identity.start;
}

/**
 * A record's status as seen now: a run whose processes are gone without a terminal status is stale
 * — a starting one too, once the dispatch that was starting it is gone (killed before its
 * supervisor started).
 */
export function viewStatus(record: RunRecord): RunView {
  if ((TERMINAL as readonly string[]).includes(record.status)) return record.status;
  if (isAlive(record.supervisorPid) || isAlive(record.pid)) return record.status;
  return record.status === 'starting' && isSameProcess(record.dispatcher) ? record.status : 'stale';
}
