/**
 * An independent checker: re-derives every constraint a plan must satisfy from its input and
 * lists the violations. It shares scope extraction with the planner (the definition of what an
 * issue touches) but none of the conflict, classification or partition code: overlaps and
 * import contention are re-checked here by brute force over every pair in a wave.
 */
import { selectIssues } from '../backlog/select-issues.js';
import { rollUpLeaves, type Leaf } from '../conflicts/roll-up-leaves.js';
import type { PlanInput } from '../plan.js';
import { resolvePlanOptions, scopeOptionsFor, summaryLine } from '../plan.js';
import { PLAN_SCHEMA_VERSION, PlanSchema, type Plan } from '../schema/plan-schema.js';
import { extractScope } from '../scope/extract-scope.js';
import { inferScopes } from '../infer/infer-scopes.js';
import { containsPath } from '../paths/repo-paths.js';
import { createRepoTree, type RepoTree } from '../scope/repo-tree.js';
import { matchHub } from '../scope/hub-paths.js';
import { DEFAULT_TIER, routeTier } from '../classify/route-tier.js';
import { matchSerial, ROOT_FILE_GLOBS } from '../scope/serial-paths.js';
import { globMatcher } from '../paths/globs.js';
import type { IssueNumber, RepoGraph, RepoPath } from '../types.js';
import { canonicalLane, WHOLE_REPOSITORY } from '../leases/canonical-lane.js';
import { resolveLaneName } from '../scope/resolve-lane.js';

export interface PlanViolation {
  rule: 'schema' | 'exactly-once' | 'wave-size' | 'max-waves' | 'serial' | 'conflict' | 'dependency' | 'lease' | 'summary';
  message: string;
}

function filesOf(leaves: readonly Leaf[], tree: RepoTree, graph: RepoGraph): Set<RepoPath> {
  const out = new Set<RepoPath>();
  for (const leaf of leaves) {
    if (leaf.dir) {
      for (const f of tree.sorted) if (containsPath(leaf.path, f) && graph.hasNode(f)) out.add(f);
    } else if (graph.hasNode(leaf.path)) out.add(leaf.path);
  }
  return out;
}

/** Whether leaves touch a root file (a glob of `ROOT_FILE_GLOBS`, itself or under a directory leaf), by brute force. */
function touchesRootFile(leaves: readonly Leaf[], tree: RepoTree): boolean {
  const isRoot = (path: RepoPath) => ROOT_FILE_GLOBS.some((glob) => globMatcher(glob)(path));
  return leaves.some((leaf) => isRoot(leaf.path) || (leaf.dir && tree.sorted.some((f) => containsPath(leaf.path, f) && isRoot(f))));
}

/** Files reachable from `from` in 1..depth import hops. */
function reachable(from: ReadonlySet<RepoPath>, graph: RepoGraph, depth: number): Set<RepoPath> {
  const seen = new Set<RepoPath>();
  let frontier = [...from];
  for (let d = 0; d < depth; d++) {
    const next: RepoPath[] = [];
    for (const f of frontier) {
      graph.forEachOutNeighbor(f, (t) => {
        if (!seen.has(t)) {
          seen.add(t);
          next.push(t);
        }
      });
    }
    frontier = next;
  }
  return seen;
}

export function verifyPlan(plan: Plan, input: PlanInput): PlanViolation[] {
  const violations: PlanViolation[] = [];
  const add = (rule: PlanViolation['rule'], message: string) => violations.push({ rule, message });

  const schema = PlanSchema.safeParse(plan);
  if (!schema.success) add('schema', `plan does not match the schema: ${schema.error.issues[0]?.message ?? ''}`);
  if (plan.schemaVersion !== PLAN_SCHEMA_VERSION) add('schema', `schemaVersion ${String(plan.schemaVersion)} is not ${PLAN_SCHEMA_VERSION}`);

  const options = resolvePlanOptions(input.options);
  const tree = createRepoTree(input.repo.files, input.repo.packages, input.repo.linksOut);
  const graph = input.repo.graph;
  const selected = selectIssues(input.issues, options.top, options.priorityLabels);
  const selectedNumbers = new Set(selected.map((i) => i.number));

  // Exactly once across the buckets.
  const seen = new Map<IssueNumber, number>();
  const waveOf = new Map<IssueNumber, number>();
  const count = (n: IssueNumber) => seen.set(n, (seen.get(n) ?? 0) + 1);
  plan.waves.forEach((wave, i) => wave.issues.forEach((issue) => (count(issue.number), waveOf.set(issue.number, i))));
  for (const bucket of [plan.subdivide, plan.triage, plan.held, plan.deferred]) for (const item of bucket) count(item.number);
  for (const [n, times] of seen) {
    if (!selectedNumbers.has(n)) add('exactly-once', `#${n} is in the plan but not among the selected issues`);
    else if (times > 1) add('exactly-once', `#${n} appears ${times} times`);
  }
  for (const n of selectedNumbers) if (!seen.has(n)) add('exactly-once', `#${n} was selected but appears nowhere`);

  // Caps.
  if (plan.waves.length > options.maxWaves) add('max-waves', `${plan.waves.length} waves exceed maxWaves ${options.maxWaves}`);
  plan.waves.forEach((wave, i) => {
    if (wave.index !== i + 1) add('summary', `wave at position ${i + 1} has index ${wave.index}`);
    if (wave.issues.length === 0) add('wave-size', `wave ${wave.index} is empty`);
    if (wave.issues.length > options.waveSize) add('wave-size', `wave ${wave.index} has ${wave.issues.length} issues (cap ${options.waveSize})`);
  });

  // Per-issue facts, re-derived. In plan mode an issue's scope may be inferred (its fence, or
  // candidates added to what it names): the same inference gives the same scope again.
  const byNumber = new Map(selected.map((i) => [i.number, i]));
  const scopeOptions = scopeOptionsFor(options, input.issues);
  const inferred = options.inference === 'plan' ? inferScopes(selected, input.repo, tree, options, scopeOptions).scopes : null;
  const scopeOf = (issue: (typeof selected)[number]) => inferred?.get(issue.number) ?? extractScope(issue, tree, scopeOptions);
  const facts = new Map<IssueNumber, { leaves: Leaf[]; files: Set<RepoPath>; serial: boolean; rooted: boolean; deps: IssueNumber[] }>();
  for (const wave of plan.waves) {
    for (const item of wave.issues) {
      const issue = byNumber.get(item.number);
      if (!issue) continue;
      const scope = scopeOf(issue);
      const leaves = rollUpLeaves(scope.leaves, options.granularity, tree);
      const serial = scope.leaves.some((leaf) => matchSerial(leaf, tree, options.serial) !== null || matchHub(leaf, tree, graph, options) !== null);
      const rooted = scope.root !== null || touchesRootFile(leaves, tree);
      facts.set(item.number, { leaves, files: filesOf(leaves, tree, graph), serial, rooted, deps: scope.dependsOn });
    }
  }

  // Serial issues alone, and wave kinds that say so.
  for (const wave of plan.waves) {
    const serials = wave.issues.filter((i) => facts.get(i.number)?.serial);
    if (serials.length > 0 && wave.issues.length > 1) add('serial', `wave ${wave.index}: serial #${serials[0]!.number} shares its wave`);
    const expected = serials.length > 0 ? 'serial_singleton' : 'parallel';
    if (wave.kind !== expected) add('serial', `wave ${wave.index} is ${wave.kind}, expected ${expected}`);
  }

  // The cap on non-default-tier issues per wave.
  if (options.routing) {
    for (const wave of plan.waves) {
      const heavy = wave.issues.filter((i) => {
        const issue = byNumber.get(i.number);
        return issue && routeTier(scopeOf(issue).category, options.routing).tier !== DEFAULT_TIER;
      });
      if (heavy.length > options.routing.maxNonDefaultConcurrent) {
        add('wave-size', `wave ${wave.index} has ${heavy.length} non-default-tier issues (cap ${options.routing.maxNonDefaultConcurrent})`);
      }
    }
  }

  // No conflicting pair in a wave.
  for (const wave of plan.waves) {
    for (let i = 0; i < wave.issues.length; i++) {
      for (let j = i + 1; j < wave.issues.length; j++) {
        const x = wave.issues[i]!.number;
        const y = wave.issues[j]!.number;
        const fx = facts.get(x);
        const fy = facts.get(y);
        if (!fx || !fy) continue;
        for (const lx of fx.leaves) {
          for (const ly of fy.leaves) {
            const overlap = lx.path === ly.path || (lx.dir && containsPath(lx.path, ly.path)) || (ly.dir && containsPath(ly.path, lx.path));
            if (overlap) add('conflict', `wave ${wave.index}: #${x} and #${y} overlap on ${lx.path} / ${ly.path}`);
          }
        }
        if (options.contentionDepth > 0) {
          const fromX = reachable(fx.files, graph, options.contentionDepth);
          const fromY = reachable(fy.files, graph, options.contentionDepth);
          const hit = [...fy.files].find((f) => fromX.has(f) && !fx.files.has(f)) ?? [...fx.files].find((f) => fromY.has(f) && !fy.files.has(f));
          if (hit) add('conflict', `wave ${wave.index}: #${x} and #${y} contend through imports of ${hit}`);
        }
        if (fx.rooted && fy.rooted) add('conflict', `wave ${wave.index}: #${x} and #${y} both touch root files`);
        if (fx.deps.includes(y) || fy.deps.includes(x)) add('dependency', `wave ${wave.index}: #${x} and #${y} depend on each other`);
      }
    }
  }

  // No issue of a wave overlaps, or contends through imports with, another holder's live lease;
  // a serial issue waits while any such lease is held.
  const now = typeof input.now === 'number' ? input.now : new Date(input.now).getTime();
  const live = (input.leases ?? []).filter((l) => Date.parse(l.until) > now && l.holder !== options.holder);
  if (live.length > 0) {
    const leased = live.map((lease) => {
      const lane = canonicalLane(lease.lane);
      const path = lane === WHOLE_REPOSITORY ? '' : tree.isFile(lane) || tree.isDir(lane) ? lane : (resolveLaneName(lane, tree) ?? lane);
      const dir = path === '' || tree.isDir(path);
      return { lease, leaf: { path, dir }, files: filesOf([{ path, dir }], tree, graph), rooted: path !== '' && touchesRootFile([{ path, dir }], tree) };
    });
    for (const [n, fact] of facts) {
      if (fact.serial) add('lease', `#${n} runs alone but ${live[0]!.lane} is leased by ${live[0]!.holder}`);
      const reach = options.contentionDepth > 0 ? reachable(fact.files, graph, options.contentionDepth) : new Set<RepoPath>();
      for (const { lease, leaf, files, rooted } of leased) {
        const overlap = fact.leaves.some((l) => l.path === leaf.path || (leaf.dir && containsPath(leaf.path, l.path)) || (l.dir && containsPath(l.path, leaf.path)));
        if (overlap) add('lease', `#${n} overlaps ${lease.lane}, leased by ${lease.holder}`);
        else if (fact.rooted && rooted) add('lease', `#${n} touches root files and so does ${lease.lane}, leased by ${lease.holder}`);
        else if (options.contentionDepth > 0) {
          const back = reachable(files, graph, options.contentionDepth);
          if ([...files].some((f) => reach.has(f)) || [...fact.files].some((f) => back.has(f))) add('lease', `#${n} contends through imports with ${lease.lane}, leased by ${lease.holder}`);
        }
      }
    }
  }

  // Dependencies on selected issues sit in strictly earlier waves.
  for (const [n, fact] of facts) {
    for (const dep of fact.deps) {
      if (!selectedNumbers.has(dep)) continue;
      const depWave = waveOf.get(dep);
      if (depWave === undefined) add('dependency', `#${n} depends on #${dep}, which is not in an earlier wave`);
      else if (depWave >= waveOf.get(n)!) add('dependency', `#${n} (wave ${waveOf.get(n)! + 1}) depends on #${dep} (wave ${depWave + 1})`);
    }
  }

  // The summary tells the truth.
  const inWaves = plan.waves.reduce((s, w) => s + w.issues.length, 0);
  const s = plan.summary;
  const expected = {
    evaluated: selected.length,
    dispatchable: inWaves,
    waves: plan.waves.length,
    subdivide: plan.subdivide.length,
    triage: plan.triage.length,
    held: plan.held.length,
    deferred: plan.deferred.length,
  };
  for (const [key, value] of Object.entries(expected)) {
    if (s[key as keyof typeof expected] !== value) add('summary', `summary.${key} is ${s[key as keyof typeof expected]}, expected ${value}`);
  }
  if (plan.summaryLine !== summaryLine(plan.summary)) add('summary', `summaryLine does not match the summary`);
  return violations;
}
