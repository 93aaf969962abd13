/**
 * A run's live fence, kept by its supervisor. A path inside the fence (the planned paths,
 * with the lockfile a manifest brings along, and what was granted since) is allowed. A path
 * outside it is a request to widen the fence, decided by the one lease rule (decideLeases, with
 * `extension: true`) inside the journal's lock: granted, it is leased in the run's name with the
 * run's time to live, and recorded in the run's sealed record; refused, the refusal is recorded
 * with who holds what and why. Checks are answered one at a time, in order, so that one path is
 * never leased twice and the record's lists never race.
 *
 * NOTE: the record is written by the supervisor alone (its `save`), sealed outside the repository;
 * harvest reads the extensions from the seal, never from anything the agent can write.
 */
import { createRepoTree, fenceWithCompanions, inFence, lanesOverlap, loadRepo, type LeaseRules } from '@waves/planner';
import { journalBackend } from '../leases/journal-backend.js';
import type { LeaseBackend } from '../leases/lease-backend.js';
import type { FenceExtension, FenceLog, FenceRefusal, FenceRules } from '../runs/run-record.js';
import type { FenceAsker, FencePathResult } from './fence-client.js';
import { resolveFencePath } from './fence-paths.js';

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
   * The run shares the work tree with other runs (no worktree): a write the watcher sees inside
   * another run's lease is that run's, not a refusal of this one.
   */
  sharedTree?: boolean;
  /** The plan's graph and tree; default: read from the graph cache of the root (never rebuilt). */
  loadRules?: () => Promise<Pick<LeaseRules, 'graph' | 'tree'>>;
}

export interface FenceKeeper {
  check(paths: readonly string[], by: FenceAsker): Promise<FencePathResult[]>;
  /** The ids of the leases granted to extensions. */
  leaseIds(): string[];
  /** Stops renewing; releases the extensions' leases. */
  close(): Promise<void>;
}

/** The graph and tree for import contention: from the graph cache, read-only (a miss builds it in memory, never writes). */
export async function rulesFromCache(root: string): Promise<Pick<LeaseRules, 'graph' | 'tree'>> {
  const repo = await loadRepo(root, { cache: 'read-only' });
  return { graph: repo.graph, tree: createRepoTree(repo.files, repo.packages) };
}

export function createFenceKeeper(options: FenceKeeperOptions): FenceKeeper {
  const log: FenceLog = { installed: [...options.log.installed], extensions: [...options.log.extensions], refusals: [...options.log.refusals] };
  const fence = fenceWithCompanions(options.fence);
  const leases = options.backend ?? journalBackend(options.journal, options.now);
  const own = new Set(options.ownFiles);
  let rules: Promise<Pick<LeaseRules, 'graph' | 'tree'>> | null = null;
  const rulesNow = () => (rules ??= (options.loadRules ?? (() => rulesFromCache(options.root)))().catch(() => ({ graph: null, tree: null })));
  // Warm: the first question should not wait for the graph.
  void rulesNow();
  let queue: Promise<unknown> = Promise.resolve();
  const refusedOnce = new Set<string>();
  const extended = () => log.extensions.map((e) => e.path);

  const decideOne = async (asked: string, by: FenceAsker): Promise<FencePathResult> => {
    const resolved = await resolveFencePath(options.tree, asked);
    const at = options.now().toISOString();
    const refuse = async (refusal: Omit<FenceRefusal, 'at' | 'by'>): Promise<FencePathResult> => {
      const entry: FenceRefusal = { ...refusal, at, by };
      const othersWrite = options.sharedTree === true && by === 'watcher' && refusal.reason === 'overlap';
      // One entry per path and reason: an agent retrying does not grow the record without end.
      const key = `${entry.path}\0${entry.reason}\0${entry.holder ?? ''}`;
      if (!othersWrite && !refusedOnce.has(key) && !log.refusals.some((r) => r.path === entry.path && r.reason === entry.reason && r.holder === entry.holder)) {
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
    if (own.has(repoPath)) return refuse({ path: repoPath, reason: 'own', holder: null, via: null, message: `${repoPath} is waves' fence integration for this run, not a file of the issue` });
    if (inFence(fence, repoPath)) return { path: asked, repoPath, status: 'allowed', message: 'inside the fence' };
    if (inFence(extended(), repoPath)) return { path: asked, repoPath, status: 'allowed', message: 'added to the fence earlier in this run' };
    // In a shared work tree, a write the watcher sees under another run's lease is that run's (its
    // own fence, a root file it was given): never this run's to be granted or refused.
    if (options.sharedTree === true && by === 'watcher') {
      const owner = (await leases.list()).leases.find((lease) => lease.holder !== options.rules.holder && lanesOverlap(lease.lane, repoPath));
      if (owner) return { path: asked, repoPath, status: 'allowed', holder: owner.holder, message: `written under ${owner.holder}'s lease on ${owner.lane}: that run's change` };
    }
    const { graph, tree } = await rulesNow();
    const [result] = await leases.acquire([repoPath], {
      holder: options.rules.holder,
      ttlMs: options.ttlMs,
      rules: { graph, tree, contentionDepth: options.rules.contentionDepth, serial: options.rules.serial, extension: true },
    });
    if (result!.status === 'refused') {
      return refuse({ path: repoPath, reason: result!.reason, holder: result!.holder || null, via: result!.via ?? null, message: result!.message });
    }
    const extension: FenceExtension = {
      path: repoPath,
      at,
      by,
      leaseId: result!.id,
      reason: `outside the planned fence; no other run's lease covers it or is within ${options.rules.contentionDepth} import hop(s) of it`,
    };
    log.extensions.push(extension);
    await options.onChange(log);
    options.onGranted?.(extension);
    return { path: asked, repoPath, status: 'granted', message: `added to the fence (leased as ${result!.id})` };
  };

  // Extension leases live as long as the run's: renewed at a third of their time.
  const renewal = setInterval(() => {
    void (async () => {
      const ids = log.extensions.map((e) => e.leaseId).filter((x): x is string => x !== null);
      if (ids.length > 0) await leases.renew(ids, options.ttlMs).catch(() => undefined);
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
