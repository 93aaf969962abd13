/**
 * Puts every selected issue in exactly one bucket — triage, subdivide, held, deferred or
 * dispatchable (serial or not) — with the reason, from its scope, the leases and the backlog.
 * Dependency cycles are found with Tarjan's strongly-connected-components algorithm; an issue
 * that depends on one that cannot run in this plan is deferred, transitively.
 */
import type { PlanOptions } from '../schema/options-schema.js';
import type { Leaf } from '../conflicts/roll-up-leaves.js';
import { isDirectoryLeaf, type IssueScope } from '../scope/extract-scope.js';
import type { RepoTree } from '../scope/repo-tree.js';
import { heldBy, heldByImport, heldLeases } from '../leases/decide-lease.js';
import { matchHub } from '../scope/hub-paths.js';
import { matchSerial, rootFilesOf, type SerialMatch } from '../scope/serial-paths.js';
import type { ActiveLease, BacklogIssue, IssueNumber, RepoGraph, RepoPath } from '../types.js';

export type Bucket =
  | { bucket: 'triage'; reason: string }
  | { bucket: 'subdivide'; reason: string; childBudget: number }
  /** `via`: how an issue whose paths the lease does not cover contends with it (an import chain). */
  | { bucket: 'held'; lease: ActiveLease; leasePath: RepoPath; via?: string }
  | { bucket: 'deferred'; reason: string; waitsFor: IssueNumber[] }
  | { bucket: 'dispatchable'; serial: SerialMatch | null };

export interface ClassifyInput {
  /** Selected issues in rank order, with their scopes. */
  selected: readonly { issue: BacklogIssue; scope: IssueScope }[];
  /** The whole backlog (open and closed), to tell satisfied dependencies from pending ones. */
  backlog: ReadonlyMap<IssueNumber, BacklogIssue>;
  tree: RepoTree;
  graph: RepoGraph;
  leases: readonly ActiveLease[];
  /**
   * What each issue's agent may edit — its leaves after the granularity roll-up, the fence its
   * dispatch leases — checked against other holders' leases (default: the scope's own leaves).
   */
  fences?: ReadonlyMap<IssueNumber, readonly Leaf[]>;
  now: number;
  options: Pick<
    PlanOptions,
    'maxFiles' | 'maxSubsystems' | 'maxSteps' | 'requireAcceptanceCriteria' | 'serial' | 'holder' | 'hubs' | 'hubThreshold' | 'hubMinDependents' | 'contentionDepth'
  >;
}

export interface Classification {
  buckets: Map<IssueNumber, Bucket>;
  /** Dependencies on selected issues, per issue (cycle members included). */
  internalDeps: Map<IssueNumber, IssueNumber[]>;
  /** Notes about dependencies treated as satisfied. */
  notes: { number: IssueNumber; message: string }[];
}

/** Strongly connected components of the dependency graph that contain a cycle. */
export function dependencyCycles(deps: ReadonlyMap<IssueNumber, readonly IssueNumber[]>): IssueNumber[][] {
  let index = 0;
  const indices = new Map<IssueNumber, number>();
  const low = new Map<IssueNumber, number>();
  const onStack = new Set<IssueNumber>();
  const stack: IssueNumber[] = [];
  const cycles: IssueNumber[][] = [];
  const strongConnect = (v: IssueNumber): void => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of deps.get(v) ?? []) {
      if (!indices.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: IssueNumber[] = [];
      let w: IssueNumber;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort((a, b) => a - b));
    }
  };
  for (const v of [...deps.keys()].sort((a, b) => a - b)) if (!indices.has(v)) strongConnect(v);
  return cycles.sort((a, b) => a[0]! - b[0]!);
}

/**
 * Why an issue is too big for one agent, or null: the code it spans (see `IssueScope.size`) has
 * more files or subsystems than the limits, or it has more steps.
 */
function describeSize(scope: IssueScope, options: ClassifyInput['options']): string | null {
  const parts: string[] = [];
  const { files, subsystems, companions } = scope.size;
  if (files > options.maxFiles || subsystems.length > options.maxSubsystems) {
    const besides = companions > 0 ? `, besides ${companions} test, fixture, doc, example or configuration file(s)` : '';
    // At the dirs grade an issue may name directories only: no file, but subsystems.
    const span = [files > 0 || subsystems.length === 0 ? `${files} file(s)` : '', subsystems.length > 0 ? `${subsystems.length} subsystem(s)` : ''].filter(Boolean).join(' across ');
    parts.push(`${span}${besides}`);
  }
  if (scope.steps > options.maxSteps) parts.push(`${scope.steps} steps`);
  if (parts.length === 0) return null;
  const limits = `limits: ${options.maxFiles} files, ${options.maxSubsystems} subsystems, ${options.maxSteps} steps`;
  return `${parts.join(', ')} (${limits})`;
}

function childBudget(scope: IssueScope, options: ClassifyInput['options']): number {
  return Math.max(
    2,
    Math.ceil(scope.size.files / options.maxFiles),
    scope.size.subsystems.length > options.maxSubsystems ? scope.size.subsystems.length : 1,
    Math.ceil(scope.steps / options.maxSteps),
  );
}

function triageReason(scope: IssueScope): string {
  if (scope.unresolved.length > 0) {
    const names = scope.unresolved.slice(0, 3).map((u) => u.text);
    return `no path, lane or label resolves to the repository (unresolved: ${names.join(', ')}${scope.unresolved.length > 3 ? ', …' : ''})`;
  }
  return 'no path, lane or label names what it touches';
}

export function classifyIssues(input: ClassifyInput): Classification {
  const { selected, backlog, tree, options } = input;
  const selectedNumbers = new Set(selected.map((s) => s.issue.number));
  const buckets = new Map<IssueNumber, Bucket>();
  const notes: Classification['notes'] = [];
  const internalDeps = new Map<IssueNumber, IssueNumber[]>();
  const externalWaits = new Map<IssueNumber, IssueNumber[]>();

  for (const { issue, scope } of selected) {
    const internal: IssueNumber[] = [];
    const waits: IssueNumber[] = [];
    for (const dep of scope.dependsOn) {
      if (selectedNumbers.has(dep)) internal.push(dep);
      else {
        const other = backlog.get(dep);
        if (!other) notes.push({ number: issue.number, message: `depends on #${dep}, which is not in the backlog: treated as done` });
        else if (other.state === 'closed') notes.push({ number: issue.number, message: `depends on #${dep}, which is closed: satisfied` });
        else waits.push(dep);
      }
    }
    internalDeps.set(issue.number, internal);
    externalWaits.set(issue.number, waits);
  }

  const inCycle = new Map<IssueNumber, IssueNumber[]>();
  for (const cycle of dependencyCycles(internalDeps)) for (const n of cycle) inCycle.set(n, cycle);

  // The lease rule is decide-lease.ts's, the one the journal and live fences apply too.
  const activeLeases = heldLeases(
    input.leases.filter((lease) => Date.parse(lease.until) > input.now),
    options.holder,
    tree,
  );

  const rootLeased = activeLeases.some((entry) => entry.rootFile);
  for (const { issue, scope } of selected) {
    const cycle = inCycle.get(issue.number);
    if (scope.leaves.length === 0) {
      buckets.set(issue.number, { bucket: 'triage', reason: triageReason(scope) });
      continue;
    }
    if (cycle) {
      buckets.set(issue.number, { bucket: 'triage', reason: `dependency cycle: ${[...cycle, cycle[0]!].map((n) => `#${n}`).join(' → ')}` });
      continue;
    }
    if (options.requireAcceptanceCriteria && !scope.hasAcceptanceCriteria) {
      buckets.set(issue.number, { bucket: 'triage', reason: 'no acceptance-criteria section (required by the config)' });
      continue;
    }
    const size = describeSize(scope, options);
    if (size) {
      buckets.set(issue.number, { bucket: 'subdivide', reason: size, childBudget: childBudget(scope, options) });
      continue;
    }
    const fence = input.fences?.get(issue.number) ?? scope.leaves.map((leaf) => ({ path: leaf.path, dir: isDirectoryLeaf(leaf.kind) }));
    const held = heldBy(fence, activeLeases, rootLeased && rootFilesOf(fence, tree, scope.root !== null).length > 0);
    if (held) {
      buckets.set(issue.number, { bucket: 'held', lease: held.lease, leasePath: held.path });
      continue;
    }
    // Another orchestrator's agent edits files this issue's files import (or that import them).
    const contended = heldByImport(fence, activeLeases, input.graph, tree, options.contentionDepth);
    if (contended) {
      buckets.set(issue.number, { bucket: 'held', lease: contended.lease, leasePath: contended.path, via: contended.via });
      continue;
    }
    const waits = externalWaits.get(issue.number)!;
    if (waits.length > 0) {
      buckets.set(issue.number, {
        bucket: 'deferred',
        reason: `waits for ${waits.map((n) => `#${n}`).join(', ')} (open, not in this plan)`,
        waitsFor: waits,
      });
      continue;
    }
    // Root files make no issue serial (they conflict with one another instead); configured globs and opted-in hubs do.
    let serial: SerialMatch | null = null;
    for (const leaf of scope.leaves) {
      serial = matchSerial(leaf, tree, options.serial) ?? matchHub(leaf, tree, input.graph, options);
      if (serial) break;
    }
    // A serial issue runs alone: while anyone else holds any lease, it waits.
    if (serial && activeLeases.length > 0) {
      buckets.set(issue.number, { bucket: 'held', lease: activeLeases[0]!.lease, leasePath: activeLeases[0]!.path });
      continue;
    }
    buckets.set(issue.number, { bucket: 'dispatchable', serial });
  }

  // An issue that depends on a selected issue that cannot run in this plan waits for it.
  let changed = true;
  while (changed) {
    changed = false;
    for (const { issue } of selected) {
      const bucket = buckets.get(issue.number)!;
      if (bucket.bucket !== 'dispatchable') continue;
      const blocked = internalDeps.get(issue.number)!.filter((dep) => buckets.get(dep)!.bucket !== 'dispatchable');
      if (blocked.length > 0) {
        const why = blocked.map((dep) => `#${dep} (${buckets.get(dep)!.bucket})`).join(', ');
        buckets.set(issue.number, { bucket: 'deferred', reason: `waits for ${why}`, waitsFor: blocked });
        changed = true;
      }
    }
  }
  return { buckets, internalDeps, notes };
}
