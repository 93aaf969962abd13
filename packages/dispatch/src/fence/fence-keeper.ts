/**
 * A run's live fence, kept by its supervisor. A path inside the fence (the planned paths,
 * with the lockfile a manifest brings along, and what was granted since) is allowed — but for a
 * control file only a folder leaf covers: refused (`control`), as harvest would need a person. A path
 * outside it is a request to widen the fence, decided by the one lease rule (decideLeases, with
 * `extension: true`) inside the journal's lock: granted, it is leased in the run's name with the
 * run's time to live, and recorded in the run's sealed record; refused, the refusal is recorded
 * with who holds what and why. Checks are answered one at a time, in order, so that one path is
 * never leased twice and the record's lists never race.
 *
 * NOTE: the record is written by the supervisor alone (its `save`), sealed outside the repository;
 * harvest reads the extensions from the seal, never from anything the agent can write.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import {
  createRepoTree,
  decideLeases,
  fenceWithCompanions,
  inFence,
  isSourceFile,
  isUnnamedControlFile,
  UNNAMED_CONTROL_FILE,
  lanesOverlap,
  loadRepo,
  ModuleResolver,
  parentDir,
  readRegularFile,
  readWorkspace,
  scanImports,
  type LeaseRules,
  type RepoPath,
} from '@waves/planner';
import { journalBackend } from '../leases/journal-backend.js';
import type { LeaseBackend } from '../leases/lease-backend.js';
import type { FenceExtension, FenceLog, FenceRefusal, FenceRules } from '../runs/run-record.js';
import type { FenceAsker, FencePathResult } from './fence-client.js';
import { resolveFencePath } from './fence-paths.js';

/**
 * The most paths one run's fence grows by, and the most refusals its record keeps: an agent that
 * writes thousands of files outside its fence (a generator, a stray `cp -r`) needs a person, not a
 * lease per file; a record stays a few hundred kilobytes at most.
 */
export const MAX_EXTENSIONS = 500;
export const MAX_REFUSALS = 500;

export interface FenceKeeperOptions {
  /** The repository's root (its graph cache, its journal's lanes are relative to it). */
  root: string;
  /** The run's work tree: its worktree, or the root. */
  tree: string;
  journal: string;
  /** Where the run's leases are (default: that journal). */
  backend?: LeaseBackend;
  rules: FenceRules;
  /** The fence the plan gave (directory leaves end with `/`). */
  fence: readonly string[];
  ttlMs: number;
  now: () => Date;
  /** waves' own integration files in the tree (never granted, never allowed to the agent). */
  ownFiles: readonly string[];
  /** What the fence did so far (a supervisor restarted on a record keeps it). */
  log: FenceLog;
  /** Called after each change of the log, to write it into the record (sealed) before the answer goes out. */
  onChange: (log: FenceLog) => Promise<void>;
  /** A refusal, for the run's log and `fence.onRefusal`. */
  onRefused?: (refusal: FenceRefusal) => void;
  /** A grant, for the run's log. */
  onGranted?: (extension: FenceExtension) => void;
  /**
   * An extension's lease was lost (released or taken by someone else, expired, or not renewed for
   * its whole time): as for a planned lease, another holder may have its path now.
   */
  onLeaseLost?: (path: string, why: string) => void;
  /**
   * The run shares the work tree with other runs (no worktree): a write the watcher sees inside
   * another run's lease is that run's, not a refusal of this one.
   */
  sharedTree?: boolean;
  /**
   * The files a source file of the tree imports as it is on disk now, resolved (default: read and
   * resolved with the repository's workspace; null when it is no source file or cannot be read).
   */
  importsOf?: (repoPath: RepoPath) => Promise<RepoPath[] | null>;
  /** The plan's graph and tree; default: read from the graph cache of the root (never rebuilt). */
  loadRules?: () => Promise<Pick<LeaseRules, 'graph' | 'tree'>>;
}

export interface FenceKeeper {
  check(paths: readonly string[], by: FenceAsker): Promise<FencePathResult[]>;
  /** Records a folder the watcher cannot watch (ENOSPC, EMFILE): the run then needs a person at harvest. */
  blind(relative: string, code: string): Promise<void>;
  /** The ids of the leases granted to extensions. */
  leaseIds(): string[];
  /** Stops renewing; releases the extensions' leases. */
  close(): Promise<void>;
}

/** The graph and tree for import contention: from the graph cache, read-only (a miss builds it in memory, never writes). */
export async function rulesFromCache(root: string): Promise<Pick<LeaseRules, 'graph' | 'tree'>> {
  const repo = await loadRepo(root, { cache: 'read-only', history: false, words: false });
  return { graph: repo.graph, tree: createRepoTree(repo.files, repo.packages) };
}

/** A source file bigger than this is not scanned for imports (as the graph build bounds it). */
const MAX_SCANNED_BYTES = 4 * 1024 * 1024;

/**
 * What a source file of the work tree imports now: read (a regular file, never through a link,
 * bounded) and resolved as the graph build resolves, against the repository's files and workspace.
 */
export function importsReader(root: string, tree: string, files: () => Promise<readonly RepoPath[]>): (repoPath: RepoPath) => Promise<RepoPath[] | null> {
  let resolver: Promise<ModuleResolver> | null = null;
  const resolverNow = () =>
    (resolver ??= (async () => {
      const all = await files();
      const { members } = await readWorkspace(root, all);
      return new ModuleResolver({ root: tree, files: all, members });
    })());
  return async (repoPath) => {
    if (!isSourceFile(repoPath)) return null;
    const read = await readRegularFile(path.join(tree, repoPath), { maxBytes: MAX_SCANNED_BYTES });
    if (!read.ok) return null;
    const resolve = await resolverNow();
    const out = new Set<RepoPath>();
    for (const { specifier } of scanImports(read.text, repoPath)) {
      const target = resolve.resolve(specifier, repoPath);
      if (target.kind === 'file' && target.path !== repoPath) out.add(target.path);
    }
    return [...out].sort();
  };
}

export function createFenceKeeper(options: FenceKeeperOptions): FenceKeeper {
  const log: FenceLog = {
    installed: [...options.log.installed],
    extensions: [...options.log.extensions],
    refusals: [...options.log.refusals],
    ...(options.log.unwatched ? { unwatched: [...options.log.unwatched] } : {}),
  };
  const fence = fenceWithCompanions(options.fence);
  const leases = options.backend ?? journalBackend(options.journal, options.now);
  let rules: Promise<Pick<LeaseRules, 'graph' | 'tree'>> | null = null;
  const rulesNow = () => (rules ??= (options.loadRules ?? (() => rulesFromCache(options.root)))().catch(() => ({ graph: null, tree: null })));
  // Warm: the first question should not wait for the graph.
  void rulesNow();
  let queue: Promise<unknown> = Promise.resolve();
  const refusedOnce = new Set<string>();
  const extended = () => log.extensions.map((e) => e.path);

  const importsOf = options.importsOf ?? importsReader(options.root, options.tree, async () => (await rulesNow()).tree?.sorted ?? []);
  /**
   * Puts the imports a written file has now into the graph the rule reads (the supervisor's own
   * copy): a file the agent created, or rewrote to import more, contends by what it imports now.
   * Edges it had are kept (contention errs on the side of more).
   */
  const learnImports = async (repoPath: RepoPath): Promise<void> => {
    const { graph } = await rulesNow();
    if (graph === null) return;
    const targets = await importsOf(repoPath).catch(() => null);
    if (targets === null || targets.length === 0) return;
    if (!graph.hasNode(repoPath)) graph.addNode(repoPath, { package: null, dir: parentDir(repoPath) });
    for (const target of targets) {
      if (!graph.hasNode(target) || graph.hasEdge(repoPath, target)) continue;
      graph.addEdge(repoPath, target, { kind: 'static', kinds: ['static'] });
    }
  };
  /** Whether a granted file, as written now, contends through its imports with another run's lease. */
  const importContention = async (repoPath: RepoPath): Promise<Omit<FenceRefusal, 'at' | 'by'> | null> => {
    await learnImports(repoPath);
    const { graph, tree } = await rulesNow();
    if (graph === null || tree === null || options.rules.contentionDepth <= 0) return null;
    const verdict = decideLeases((await leases.list()).leases, [repoPath], options.rules.holder, {
      graph,
      tree,
      contentionDepth: options.rules.contentionDepth,
      serial: options.rules.serial,
    });
    if (verdict.status === 'granted' || verdict.reason !== 'import') return null;
    const message = verdict.message.startsWith(`${verdict.lane}: `) ? verdict.message.slice(verdict.lane.length + 2) : verdict.message;
    return { path: repoPath, reason: 'import', holder: verdict.lease?.holder ?? null, via: verdict.via ?? null, message: `written after it was added to the fence: ${message}` };
  };

  const decideOne = async (asked: string, by: FenceAsker): Promise<FencePathResult> => {
    const resolved = await resolveFencePath(options.tree, asked);
    const at = options.now().toISOString();
    const refuse = async (refusal: Omit<FenceRefusal, 'at' | 'by'>): Promise<FencePathResult> => {
      const entry: FenceRefusal = { ...refusal, at, by };
      const othersWrite = options.sharedTree === true && by === 'watcher' && refusal.reason === 'overlap';
      // One entry per path and reason: an agent retrying does not grow the record without end.
      const key = `${entry.path}\0${entry.reason}\0${entry.holder ?? ''}`;
      if (!othersWrite && log.refusals.length < MAX_REFUSALS && !refusedOnce.has(key) && !log.refusals.some((r) => r.path === entry.path && r.reason === entry.reason && r.holder === entry.holder)) {
        refusedOnce.add(key);
        log.refusals.push(entry);
        await options.onChange(log);
      }
      if (!othersWrite) options.onRefused?.(entry);
      return {
        path: asked,
        repoPath: refusal.path,
        status: 'refused',
        reason: refusal.reason,
        ...(refusal.holder ? { holder: refusal.holder } : {}),
        ...(refusal.via ? { via: refusal.via } : {}),
        message: refusal.message,
      };
    };
    if (!resolved.ok) return refuse({ path: asked.slice(0, 300), reason: resolved.reason, holder: null, via: null, message: resolved.message });
    const repoPath = resolved.repoPath;
    // A file written with more than one name (a hard link) changes the other names too — maybe
    // another run's leased file, which the watcher never sees written: refused, as harvest refuses it.
    if (by === 'watcher') {
      const info = await lstat(path.join(options.tree, repoPath)).catch(() => null);
      if (info !== null && info.isFile() && info.nlink > 1) {
        return refuse({ path: repoPath, reason: 'invalid', holder: null, via: null, message: `${repoPath} is a hard link (${info.nlink} names): a write to it changes another file too` });
      }
    }
    if (options.ownFiles.includes(repoPath)) return refuse({ path: repoPath, reason: 'own', holder: null, via: null, message: `${repoPath} is waves' fence integration for this run, not a file of the issue` });
    if (inFence(fence, repoPath)) {
      // A folder of the fence stands for the sources in it, not for a control file the agent
      // would plant or change there (an rc file, a hook, an agent's settings): only the file
      // itself, as a leaf, lets a write to it through — as no extension ever does.
      if (isUnnamedControlFile(repoPath, fence)) {
        return refuse({ path: repoPath, reason: 'control', holder: null, via: null, message: UNNAMED_CONTROL_FILE });
      }
      return { path: asked, repoPath, status: 'allowed', message: 'inside the fence' };
    }
    if (inFence(extended(), repoPath)) {
      // Written again (the watcher saw it): its imports now may reach a file another run leases.
      if (by === 'watcher') {
        const contended = await importContention(repoPath);
        if (contended !== null) return refuse(contended);
      }
      return { path: asked, repoPath, status: 'allowed', message: 'added to the fence earlier in this run' };
    }
    // In a shared work tree, a write the watcher sees under another run's lease is that run's (its
    // own fence, a root file it was given): never this run's to be granted or refused.
    if (options.sharedTree === true && by === 'watcher') {
      const owner = (await leases.list()).leases.find((lease) => lease.holder !== options.rules.holder && lanesOverlap(lease.lane, repoPath));
      if (owner) return { path: asked, repoPath, status: 'allowed', holder: owner.holder, message: `written under ${owner.holder}'s lease on ${owner.lane}: that run's change` };
    }
    if (log.extensions.length >= MAX_EXTENSIONS) {
      return refuse({ path: repoPath, reason: 'invalid', holder: null, via: null, message: `the run has already widened its fence by ${MAX_EXTENSIONS} files; a person must look at what it is doing` });
    }
    if (by === 'watcher') await learnImports(repoPath);
    const { graph, tree } = await rulesNow();
    const [result] = await leases.acquire([repoPath], {
      holder: options.rules.holder,
      ttlMs: options.ttlMs,
      rules: { graph, tree, contentionDepth: options.rules.contentionDepth, serial: options.rules.serial, extension: true },
    });
    if (result!.status === 'refused') {
      // The rule's message starts with the lane: the path is said once, where the answer names it.
      const message = result!.message.startsWith(`${result!.lane}: `) ? result!.message.slice(result!.lane.length + 2) : result!.message;
      return refuse({ path: repoPath, reason: result!.reason, holder: result!.holder || null, via: result!.via ?? null, message });
    }
    const extension: FenceExtension = {
      path: repoPath,
      at,
      by,
      leaseId: result!.id,
      ...(result!.status === 'acquired' && result!.epoch !== undefined ? { epoch: result!.epoch } : {}),
      reason: `outside the planned fence; no other run's lease covers it or is within ${options.rules.contentionDepth} import hop(s) of it`,
    };
    log.extensions.push(extension);
    await options.onChange(log);
    options.onGranted?.(extension);
    return { path: asked, repoPath, status: 'granted', message: `added to the fence (leased as ${result!.id})` };
  };

  // Extension leases live as long as the run's: renewed at a third of their time. One that cannot
  // be renewed (ended: released or expired, its path maybe taken) is lost, as a planned lease is;
  // renewals that fail (the table out of reach) count as a loss once the lease's time has gone by.
  const lost = new Set<string>();
  let renewedAt = options.now().getTime();
  const loseOnce = (id: string, why: string) => {
    if (lost.has(id)) return;
    lost.add(id);
    options.onLeaseLost?.(log.extensions.find((e) => e.leaseId === id)?.path ?? id, why);
  };
  const renewal = setInterval(() => {
    void (async () => {
      const ids = log.extensions.map((e) => e.leaseId).filter((x): x is string => x !== null && !lost.has(x));
      if (ids.length === 0) return;
      try {
        const results = await leases.renew(ids, options.ttlMs);
        renewedAt = options.now().getTime();
        results.forEach((result, i) => {
          if (result.status !== 'done') loseOnce(ids[i]!, `lease ${ids[i]} of a path added to the fence is no longer held: released, expired or taken`);
        });
      } catch (error) {
        const since = options.now().getTime() - renewedAt;
        if (since >= options.ttlMs) for (const id of ids) loseOnce(id, `not renewed for ${Math.round(since / 1000)} s: ${(error as Error).message.split('\n')[0]}`);
      }
    })();
  }, Math.max(1_000, Math.floor(options.ttlMs / 3)));
  renewal.unref();

  return {
    check(paths, by) {
      const run = queue.then(async () => {
        const out: FencePathResult[] = [];
        for (const p of paths) out.push(await decideOne(p, by));
        return out;
      });
      queue = run.catch(() => undefined);
      return run;
    },
    async blind(relative, code) {
      const unwatched = (log.unwatched ??= []);
      if (unwatched.length >= MAX_REFUSALS || unwatched.some((u) => u.path === relative)) return;
      unwatched.push({ path: relative === '' ? '.' : relative, at: options.now().toISOString(), code });
      await options.onChange(log).catch(() => undefined);
    },
    leaseIds: () => log.extensions.map((e) => e.leaseId).filter((x): x is string => x !== null),
    async close() {
      clearInterval(renewal);
      await queue;
      const ids = log.extensions.map((e) => e.leaseId).filter((x): x is string => x !== null);
      if (ids.length === 0) return;
      // Releasing one that ended already is harmless.
      await leases.release(ids);
    },
  };
}
