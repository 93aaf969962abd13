/**
 * The one lease rule: may `holder` take these lanes now, beside the live leases of everyone else?
 * It is the planner's rule for an issue against other orchestrators' leases (classify-issues.ts
 * puts an issue it refuses in `held`), the journal's rule inside its lock (dispatch's acquisition,
 * `waves lease acquire`), the rule a live fence applies when a running agent writes outside its
 * fence (`waves fence check`), and the rule a git lease backend applies. One function decides all
 * of them, so that two orchestrators planning at the same instant cannot start two issues one
 * import apart, and a fence never grows where a plan would not have put the issue.
 *
 * Refused, in this order:
 * - `root` (extension only): a parallel run's fence never grows onto a root file (the manifests,
 *   lockfiles, CI and base tsconfig files every package shares), nor onto the whole repository;
 * - `serial` (extension only): nor onto a configured serial path — those issues run alone;
 * - `control` (extension only, even for a run holding the whole repository): nor onto a control
 *   file, one a tool or agent executes or obeys when it runs in the tree (control-files.ts);
 * - `overlap`: another holder's live lease covers a lane, lies inside it, or is the whole
 *   repository, or (extension only) lies in the folder a lane's new file would create, no such
 *   folder being in the tree (one run would create it, the other rely on it); or (`root`) the lane is a root file while another holder leases a root file (two
 *   issues touching root files conflict, see find-conflicts.ts);
 * - `import`: a file of a lane imports, or is imported by, a file under another holder's lease
 *   within `contentionDepth` hops — both directions, since the leased side is no issue of this
 *   plan to search from; `via` is the chain of files, the evidence;
 * - `serial`: a lane on a configured serial path while another holder holds any lease (an issue
 *   that must run alone waits while anyone else works; dispatch leases `.` for it anyway).
 *
 * Without `rules` only the paths are compared, as `waves lease acquire` always did. With rules
 * but no graph or tree (null members), lane names are not resolved, root files are told by their
 * globs and no import is known.
 *
 * NOTE: a run that holds the whole repository (a serial run) may widen its fence anywhere: nobody
 * else can hold anything meanwhile, so the extension rules do not apply to it.
 */
import { chainTo, describeChain, reachImports } from '../graph/graph-queries.js';
import { graphFiles } from '../conflicts/find-conflicts.js';
import type { Leaf } from '../conflicts/roll-up-leaves.js';
import { containsPath, parentDir } from '../paths/repo-paths.js';
import { globMatcher } from '../paths/globs.js';
import type { RepoTree } from '../scope/repo-tree.js';
import { resolveLaneName } from '../scope/resolve-lane.js';
import { isControlFile } from '../scope/control-files.js';
import { matchSerial, rootFileOf, ROOT_FILE_GLOBS } from '../scope/serial-paths.js';
import type { ActiveLease, RepoGraph, RepoPath } from '../types.js';
import { canonicalLane, WHOLE_REPOSITORY } from './canonical-lane.js';
import { lanesOverlap, type Lease } from './fold-leases.js';

export interface LeaseRules {
  /** The import graph (the plan's, from the graph cache); null: no import contention. */
  graph: RepoGraph | null;
  /** The repository's files; null: lanes are compared as spelled, root files by their globs. */
  tree: RepoTree | null;
  /** Import hops that contend (the plan's `contentionDepth`; 0 = off). */
  contentionDepth: number;
  /** The config's serial globs (`serial`): paths whose issues run alone. */
  serial: readonly string[];
  /**
   * The lanes widen a running run's fence (a live fence's extension), rather than lease an issue
   * the plan put in a wave: root files, the whole repository and serial paths are then refused
   * outright, unless the holder already holds the whole repository (a serial run).
   */
  extension?: boolean;
}

export type LeaseRefusalReason = 'overlap' | 'import' | 'root' | 'serial' | 'control';

export type LeaseVerdict =
  | { status: 'granted' }
  | {
      status: 'refused';
      reason: LeaseRefusalReason;
      /** The lane refused (canonical). */
      lane: string;
      /** The other holder's lease in the way (absent for an extension onto a root file or a serial path). */
      lease?: Lease;
      /** For `import`: the chain of files from the lane to the leased file, or back. */
      via?: string;
      /** One line for people: why, who holds it, until when, the evidence. */
      message: string;
    };

/** A live lease of another holder, with the repository path its lane stands for. */
export interface HeldLease {
  lease: ActiveLease;
  /** The path the lane stands for (`""` for the whole repository; a lane name resolved through the tree). */
  path: RepoPath;
  /** Whether the leased path is, or holds, a root file. */
  rootFile: boolean;
}

/** The path a lease's lane stands for: itself, a lane name resolved to its directory, `""` for the whole repository. */
export function leasePathOf(lane: string, tree: RepoTree | null): RepoPath {
  const canonical = canonicalLane(lane);
  if (canonical === WHOLE_REPOSITORY) return '';
  if (tree === null || tree.isFile(canonical) || tree.isDir(canonical)) return canonical;
  return resolveLaneName(canonical, tree) ?? canonical;
}

/** Whether a path is, or holds, a root file; without a tree, whether it matches a root-file glob as a file or a directory. */
function touchesRootFile(path: RepoPath, tree: RepoTree | null): boolean {
  if (path === '') return false;
  if (tree !== null) return rootFileOf({ path, dir: tree.isDir(path) }, tree) !== null;
  return ROOT_FILE_GLOBS.some((glob) => globMatcher(glob)(path) || globMatcher(glob)(`${path}/`));
}

/**
 * The outermost folder a new file would create (none of the tree's folders holds its place), or
 * null when its folder exists (or without a tree). Two runs writing into one folder that neither
 * found at the base conflict as the backtest's truth has it: one creates it, the other relies on it.
 */
function createdDir(path: RepoPath, tree: RepoTree | null): RepoPath | null {
  if (tree === null || path === '' || tree.isFile(path) || tree.isDir(path)) return null;
  let dir: RepoPath | null = null;
  for (let up = parentDir(path); up !== '' && !tree.isDir(up); up = parentDir(up)) dir = up;
  return dir;
}

/**
 * Other holders' leases, each with its path, in a stable order (by path, then holder): the first
 * one in the way is always the same, whatever order the journal holds them in.
 */
export function heldLeases(active: readonly ActiveLease[], holder: string | null, tree: RepoTree | null): HeldLease[] {
  return active
    .filter((lease) => lease.holder !== holder)
    .map((lease) => {
      const path = leasePathOf(lease.lane, tree);
      return { lease, path, rootFile: touchesRootFile(path, tree) };
    })
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.lease.holder < b.lease.holder ? -1 : a.lease.holder > b.lease.holder ? 1 : 0));
}

/**
 * The lease a fence overlaps: a leased path containing, or inside, one of its leaves — or, when
 * the fence touches root files, a lease on root files too (two issues touching root files
 * conflict, so another orchestrator's agent editing one keeps this one back).
 */
export function heldBy(leaves: readonly Leaf[], leases: readonly HeldLease[], touchesRootFiles: boolean): (HeldLease & { leaf: Leaf; rule: 'path' | 'root' }) | null {
  for (const entry of leases) {
    const leaf = leaves.find((l) => containsPath(entry.path, l.path) || containsPath(l.path, entry.path));
    if (leaf) return { ...entry, leaf, rule: 'path' };
    if (touchesRootFiles && entry.rootFile) return { ...entry, leaf: leaves[0]!, rule: 'root' };
  }
  return null;
}

/**
 * A lease the fence contends with through imports, as two issues of one plan would: a file of the
 * fence imports, or is imported by, a leased file within `depth` hops.
 */
export function heldByImport(
  leaves: readonly Leaf[],
  leases: readonly HeldLease[],
  graph: RepoGraph,
  tree: RepoTree,
  depth: number,
): (HeldLease & { via: string; chain: RepoPath[] }) | null {
  if (depth <= 0 || leases.length === 0) return null;
  const start = graphFiles(leaves, graph, tree);
  const leaseOf = (file: RepoPath) => leases.find((entry) => containsPath(entry.path, file)) ?? null;
  for (const direction of ['out', 'in'] as const) {
    const reached = reachImports(graph, start, depth, direction);
    for (const file of reached.keys()) {
      const entry = leaseOf(file);
      if (!entry) continue;
      const chain = chainTo(reached, file);
      if (direction === 'in') chain.reverse();
      return { ...entry, via: describeChain(chain), chain };
    }
  }
  return null;
}

const describeLease = (lease: ActiveLease) => `${lease.holder} holds ${lease.lane} until ${lease.until}`;

/** The lease as the verdict carries it (an `ActiveLease` of the plan has no id or since). */
function asLease(lease: ActiveLease): Lease {
  return { id: lease.id ?? '', lane: lease.lane, holder: lease.holder, until: lease.until, since: (lease as Partial<Lease>).since ?? '' };
}

/**
 * May `holder` take every lane of `lanes` now (all or none)? Pure. Throws `InputError` for a lane
 * with no canonical spelling (never a decision on a guessed lane). `active` are the live leases
 * (the journal's fold at now); the holder's own never stand in its way.
 */
export function decideLeases(active: readonly ActiveLease[], lanes: readonly string[], holder: string, rules?: LeaseRules): LeaseVerdict {
  const canonical = lanes.map(canonicalLane);
  const tree = rules?.tree ?? null;
  const graph = rules?.graph ?? null;
  const serialGlobs = rules?.serial ?? [];
  const leaves: (Leaf & { lane: string })[] = canonical.map((lane) => {
    const path = leasePathOf(lane, tree);
    return { lane, path, dir: path === '' || (tree !== null && tree.isDir(path)) };
  });
  // A lane on a serial path: the lane itself matches a serial glob (a folder lane is not searched
  // for serial files under it: an issue whose own leaves match is serial and leases `.`, and a
  // folder its leaves were rolled up to must not make it one).
  const isSerialPath = (leaf: Leaf) => tree !== null && serialGlobs.length > 0 && leaf.path !== '' && matchSerial({ path: leaf.path, kind: 'file' }, tree, serialGlobs) !== null;

  // A parallel run's fence never grows onto what makes an issue run alone, or onto what all share.
  const holdsWholeRepository = active.some((lease) => lease.holder === holder && checkWhole(lease.lane));
  if (rules?.extension && !holdsWholeRepository) {
    for (const leaf of leaves) {
      if (leaf.path === '') return { status: 'refused', reason: 'root', lane: leaf.lane, message: `${leaf.lane}: the whole repository is never added to a parallel run's fence` };
      // Any file at the top of the repository is a root file (a Makefile, a Dockerfile, an
      // install script, the README): as harvest counts them, not only the built-in globs.
      if (touchesRootFile(leaf.path, tree) || (!leaf.path.includes('/') && !leaf.dir && !isControlFile(leaf.path))) {
        return { status: 'refused', reason: 'root', lane: leaf.lane, message: `${leaf.lane}: a root file (shared by every package) is never added to a parallel run's fence; only an issue that names it may change it` };
      }
      if (isSerialPath(leaf)) {
        return { status: 'refused', reason: 'serial', lane: leaf.lane, message: `${leaf.lane}: a serial path (config serial) is never added to a parallel run's fence; its issues run alone` };
      }
    }
  }

  // Nor onto a file that runs code or steers tools and agents, whoever holds what: planted there,
  // it would run at the next install, commit, verify or agent session.
  if (rules?.extension) {
    for (const leaf of leaves) {
      if (leaf.path !== '' && isControlFile(leaf.path)) {
        return { status: 'refused', reason: 'control', lane: leaf.lane, message: `${leaf.lane}: a control file (one that tools or agents run or obey: manifests, rc files, hooks, agent and CI settings, config modules) is never added to a running run's fence; only an issue that names it may change it` };
      }
    }
  }
  const held = heldLeases(active, holder, tree);
  if (held.length === 0) return { status: 'granted' };

  // Paths: spelled lanes overlap (the journal's rule), or the paths they stand for do — or, for a
  // running run's new file, another holds a path in the folder that file would create.
  const created = leaves.map((leaf) => (rules?.extension ? createdDir(leaf.path, tree) : null));
  for (const entry of held) {
    const leaf = leaves.find((l, i) => lanesOverlap(entry.lease.lane, l.lane) || containsPath(entry.path, l.path) || containsPath(l.path, entry.path) || (created[i] != null && containsPath(created[i]!, entry.path)));
    if (leaf) return { status: 'refused', reason: 'overlap', lane: leaf.lane, lease: asLease(entry.lease), message: `${leaf.lane}: ${describeLease(entry.lease)}` };
  }
  const rootLeaf = rules === undefined ? undefined : leaves.find((leaf) => touchesRootFile(leaf.path, tree));
  const rootHeld = rootLeaf ? held.find((entry) => entry.rootFile) : undefined;
  if (rootLeaf && rootHeld) {
    return {
      status: 'refused',
      reason: 'root',
      lane: rootLeaf.lane,
      lease: asLease(rootHeld.lease),
      message: `${rootLeaf.lane}: a root file, and ${describeLease(rootHeld.lease)}, a root file too (two changes to root files conflict)`,
    };
  }

  // Imports: a file of a lane imports, or is imported by, a leased file.
  if (graph !== null && tree !== null && rules !== undefined) {
    const contended = heldByImport(leaves, held, graph, tree, rules.contentionDepth);
    if (contended) {
      const lane = leaves.find((leaf) => contended.chain.some((file) => containsPath(leaf.path, file)))?.lane ?? leaves[0]!.lane;
      return {
        status: 'refused',
        reason: 'import',
        lane,
        lease: asLease(contended.lease),
        via: contended.via,
        message: `${lane}: ${contended.via}, and ${describeLease(contended.lease)}`,
      };
    }
  }

  // A serial path runs alone: while anyone else holds anything, it waits.
  const serialLeaf = leaves.find(isSerialPath);
  if (serialLeaf) {
    const first = held[0]!;
    return { status: 'refused', reason: 'serial', lane: serialLeaf.lane, lease: asLease(first.lease), message: `${serialLeaf.lane}: a serial path runs alone, and ${describeLease(first.lease)}` };
  }
  return { status: 'granted' };
}

export type AcquireDecision = { status: 'acquired' } | { status: 'refused'; lease: Lease };

/**
 * May `holder` take `lane` now, by paths alone? `decideLeases` without rules, for one lane, in the
 * shape `waves lease` has always used. Throws `InputError` for a lane with no canonical spelling.
 */
export function decideAcquire(active: readonly Lease[], lane: string, holder: string): AcquireDecision {
  const verdict = decideLeases(active, [lane], holder);
  return verdict.status === 'granted' ? { status: 'acquired' } : { status: 'refused', lease: verdict.lease! };
}

function checkWhole(lane: string): boolean {
  try {
    return canonicalLane(lane) === WHOLE_REPOSITORY;
  } catch {
    return false;
  }
}
