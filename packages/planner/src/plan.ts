/**
 * `planWaves(input) → Plan`: the whole pipeline, pure. Reading the backlog, the repository, the
 * leases and the clock happens before (adapters); this composes the stages:
 *
 *   select → scope (+ infer) → classify → conflicts → partition → (verify, by the caller or the tests)
 */
import { priorityLabel } from './backlog/priority.js';
import { inferRepoSlug } from './backlog/infer-repo-slug.js';
import { rankIssues, selectIssues } from './backlog/select-issues.js';
import { classifyIssues, type Bucket } from './classify/classify-issues.js';
import { findConflicts, mergeConflicts, serialConflicts, type Conflict, type ConflictUnit } from './conflicts/find-conflicts.js';
import { fenceLabels, rollUpLeaves, type Leaf } from './conflicts/roll-up-leaves.js';
import { InputError } from './errors.js';
import { PlanOptionsSchema, type PlanOptions, type PlanOptionsInput } from './schema/options-schema.js';
import { PLAN_SCHEMA_VERSION, type Candidate, type Plan, type PlanIssue } from './schema/plan-schema.js';
import { inferScopes } from './infer/infer-scopes.js';
import { likelyText } from './infer/inferred-fence.js';
import { problemsOf } from './schema/schema-errors.js';
import { extractScope, type IssueScope, type ScopeOptions } from './scope/extract-scope.js';
import { createRepoTree, type RepoTree } from './scope/repo-tree.js';
import type { ActiveLease, BacklogIssue, IssueNumber, RepoIndex } from './types.js';
import { partitionWaves } from './waves/partition-waves.js';
import { lanesOverlap } from './leases/fold-leases.js';
import { DEFAULT_TIER, routeTier } from './classify/route-tier.js';
import { rootFilesOf } from './scope/serial-paths.js';

export interface PlanInput {
  /** The backlog: open and closed issues (closed ones only satisfy dependencies). */
  issues: readonly BacklogIssue[];
  repo: RepoIndex;
  /** Active leases of every orchestrator (the fold of the lease journal). */
  leases?: readonly ActiveLease[];
  options?: PlanOptionsInput;
  /** The planning instant: lease expiry is judged against it and it stamps `generatedAt`. */
  now: Date | string | number;
}

/** Everything the planner worked out, for `explain` and for tests; `plan` is the JSON contract. */
export interface PlanAnalysis {
  plan: Plan;
  options: PlanOptions;
  tree: RepoTree;
  /** Selected issues in rank order. */
  selected: BacklogIssue[];
  scopes: Map<IssueNumber, IssueScope>;
  /** Leaves after the granularity roll-up. */
  leaves: Map<IssueNumber, Leaf[]>;
  buckets: Map<IssueNumber, Bucket>;
  /** The conflicts of the plan (serial ones only for issues of the planned waves). */
  conflicts: Conflict[];
  /** The dispatchable issues as the conflict search saw them (leaves, dependencies, serial rule). */
  units: ConflictUnit[];
  /** Scope inference: each issue's candidates (absent when inference is off or found none). */
  candidates: Map<IssueNumber, Candidate[]>;
  /** Issues whose fence came from inference (plan mode). */
  inferred: Set<IssueNumber>;
}

export function resolvePlanOptions(options: PlanOptionsInput = {}): PlanOptions {
  const parsed = PlanOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const [first] = problemsOf(parsed.error);
    throw new InputError(`invalid planner option ${first!.path.replace(/^\$\.?/, '')}: ${first!.message}`);
  }
  return parsed.data;
}

function toTime(now: PlanInput['now']): number {
  const ms = now instanceof Date ? now.getTime() : typeof now === 'number' ? now : Date.parse(now);
  if (Number.isNaN(ms)) throw new InputError(`invalid planning time: ${String(now)}`);
  return ms;
}

function ref(issue: BacklogIssue) {
  return { number: issue.number, title: issue.title, url: issue.url };
}

export function summaryLine(summary: Plan['summary']): string {
  const parts = [
    `${summary.evaluated} total issue(s) evaluated`,
    `${summary.dispatchable} dispatchable`,
    `${summary.subdivide} subdivide`,
    `${summary.triage} triage`,
  ];
  if (summary.held > 0) parts.push(`${summary.held} held`);
  if (summary.deferred > 0) parts.push(`${summary.deferred} deferred`);
  return parts.join(' · ');
}

/** Scope options of a plan: the config's lanes, and the repository's slug (given or inferred). */
export function scopeOptionsFor(options: PlanOptions, issues: readonly BacklogIssue[]): ScopeOptions {
  return { lanes: options.lanes, repoSlug: options.repoSlug ?? inferRepoSlug(issues) };
}

export function analyzePlan(input: PlanInput): PlanAnalysis {
  const options = resolvePlanOptions(input.options);
  const now = toTime(input.now);
  const tree = createRepoTree(input.repo.files, input.repo.packages, input.repo.linksOut);
  const backlog = new Map(input.issues.map((issue) => [issue.number, issue]));
  const selected = selectIssues([...backlog.values()], options.top, options.priorityLabels);
  const rankOf = new Map(selected.map((issue, i) => [issue.number, i]));

  // 2. scope, and (unless off) inference for what the issue points at without naming it
  const scopes = new Map<IssueNumber, IssueScope>();
  const scopeOptions = scopeOptionsFor(options, input.issues);
  const inference = inferScopes(selected, input.repo, tree, options, scopeOptions);
  for (const issue of selected) scopes.set(issue.number, inference.scopes.get(issue.number)!);

  // The leaves after the granularity roll-up: what each agent may edit (and its dispatch leases).
  const leaves = new Map<IssueNumber, Leaf[]>();
  for (const issue of selected) leaves.set(issue.number, rollUpLeaves(scopes.get(issue.number)!.leaves, options.granularity, tree));

  // 3. classify
  const { buckets, internalDeps, notes } = classifyIssues({
    selected: selected.map((issue) => ({ issue, scope: scopes.get(issue.number)! })),
    backlog,
    tree,
    graph: input.repo.graph,
    leases: input.leases ?? [],
    fences: leaves,
    now,
    options,
  });

  // 4. conflicts between dispatchable issues
  const dispatchable = selected.filter((issue) => buckets.get(issue.number)!.bucket === 'dispatchable');
  const dispatchableSet = new Set(dispatchable.map((issue) => issue.number));
  const units: ConflictUnit[] = dispatchable.map((issue) => {
    const bucket = buckets.get(issue.number)! as Extract<Bucket, { bucket: 'dispatchable' }>;
    return {
      number: issue.number,
      leaves: leaves.get(issue.number)!,
      dependsOn: internalDeps.get(issue.number)!.filter((dep) => dispatchableSet.has(dep)),
      serial: bucket.serial,
      rootFiles: rootFilesOf(leaves.get(issue.number)!, tree, scopes.get(issue.number)!.root !== null),
    };
  });
  const conflicts = findConflicts({ units, graph: input.repo.graph, tree, contentionDepth: options.contentionDepth });

  // Model tiers: at most maxNonDefaultConcurrent non-default-tier issues share a wave.
  const tiers = dispatchable.map((issue) => routeTier(scopes.get(issue.number)!.category, options.routing));

  // 5. partition (indices in rank order)
  const index = new Map(dispatchable.map((issue, i) => [issue.number, i]));
  const partition = partitionWaves({
    size: dispatchable.length,
    // Serial issues and dependencies are constraints of their own, not conflict edges. Streamed:
    // issues that all conflict make n²/2 pairs, too many to copy into a second list.
    conflicts: (function* () {
      for (const c of conflicts) if (c.kind === 'path' || c.kind === 'import') yield [index.get(c.a)!, index.get(c.b)!] as const;
    })(),
    precedences: units.flatMap((unit) => unit.dependsOn.map((dep) => [index.get(dep)!, index.get(unit.number)!] as const)),
    serial: units.map((unit) => unit.serial !== null),
    nonDefault: tiers.map((t) => t.tier !== DEFAULT_TIER),
    maxNonDefaultPerWave: options.routing?.maxNonDefaultConcurrent ?? Number.POSITIVE_INFINITY,
    waveSize: options.waveSize,
    exactLimit: options.exactLimit,
    searchBudget: options.searchBudget,
  });

  const planIssue = (n: number): PlanIssue => {
    const issue = dispatchable[n]!;
    const scope = scopes.get(issue.number)!;
    const unit = units[n]!;
    return {
      ...ref(issue),
      lanes: scope.lanes.length > 0 ? scope.lanes : scope.subsystems,
      paths: fenceLabels(leaves.get(issue.number)!, scope.namedControlFiles),
      tier: tiers[n]!.tier,
      tierRule: tiers[n]!.rule,
      serial: unit.serial ? unit.serial.reason : null,
      dependsOn: [...unit.dependsOn].sort((a, b) => a - b),
      ...inferredFields(issue.number),
    };
  };
  function inferredFields(n: IssueNumber): { candidates?: Candidate[]; inferred?: boolean } {
    const candidates = inference.candidates.get(n);
    if (!candidates) return {};
    return { candidates, inferred: inference.inferred.has(n) };
  }
  const waves: Plan['waves'] = [];
  const deferred: Plan['deferred'] = [];
  partition.waves.forEach((members, i) => {
    const ordered = [...members].sort((x, y) => x - y);
    if (i < options.maxWaves) {
      waves.push({
        index: i + 1,
        kind: ordered.some((n) => units[n]!.serial) ? 'serial_singleton' : 'parallel',
        issues: ordered.map(planIssue),
      });
    } else {
      for (const n of ordered) {
        deferred.push({ ...ref(dispatchable[n]!), reason: `beyond --max-waves ${options.maxWaves} (would be wave ${i + 1})`, waitsFor: [] });
      }
    }
  });

  const subdivide: Plan['subdivide'] = [];
  const triage: Plan['triage'] = [];
  const held: Plan['held'] = [];
  for (const issue of selected) {
    const bucket = buckets.get(issue.number)!;
    if (bucket.bucket === 'subdivide') {
      subdivide.push({ ...ref(issue), reason: bucket.reason, childBudget: bucket.childBudget, paths: fenceLabels(leaves.get(issue.number)!, scopes.get(issue.number)!.namedControlFiles) });
    } else if (bucket.bucket === 'triage') {
      const candidates = inference.candidates.get(issue.number);
      const likely = candidates && scopes.get(issue.number)!.leaves.length === 0 ? likelyText(candidates) : '';
      triage.push({ ...ref(issue), reason: likely ? `${bucket.reason}; ${likely}` : bucket.reason, ...inferredFields(issue.number) });
    }
    else if (bucket.bucket === 'held') {
      const lease = { id: bucket.lease.id ?? null, lane: bucket.lease.lane, holder: bucket.lease.holder, until: bucket.lease.until };
      held.push({ ...ref(issue), lease, reason: heldReason(lease, leaves.get(issue.number)!.map((leaf) => leaf.path), bucket.via) });
    } else if (bucket.bucket === 'deferred') deferred.push({ ...ref(issue), reason: bucket.reason, waitsFor: bucket.waitsFor });
  }
  deferred.sort((x, y) => rankOf.get(x.number)! - rankOf.get(y.number)!);

  const warnings: Plan['warnings'] = [];
  for (const issue of selected) {
    const scope = scopes.get(issue.number)!;
    for (const r of scope.rejected) warnings.push({ number: issue.number, message: `dropped ${r.text}: ${r.reason}` });
    for (const u of scope.unresolved) warnings.push({ number: issue.number, message: `${u.text}${u.line ? ` (line ${u.line})` : ''}: ${u.reason}` });
  }
  for (const note of notes) warnings.push(note);

  const inWaves = waves.reduce((sum, wave) => sum + wave.issues.length, 0);
  // Serial conflicts are listed for the issues of the planned waves: every issue is serial
  // against all others, and listing every pair would grow with the square of the backlog.
  const planned = new Set(waves.flatMap((wave) => wave.issues.map((i) => i.number)));
  // Both lists come sorted by a, b and kind: merged, not sorted again (there may be n²/2 pairs).
  const listed = mergeConflicts(conflicts, serialConflicts(units, (n) => planned.has(n)));
  const summary: Plan['summary'] = {
    evaluated: selected.length,
    dispatchable: inWaves,
    waves: waves.length,
    subdivide: subdivide.length,
    triage: triage.length,
    held: held.length,
    deferred: deferred.length,
    optimal: partition.optimal,
  };
  const plan: Plan = {
    schemaVersion: PLAN_SCHEMA_VERSION,
    generatedAt: new Date(now).toISOString(),
    repo: { root: input.repo.root, head: input.repo.head, files: input.repo.files.length, imports: input.repo.graph.size },
    options: {
      inference: options.inference,
      inferenceThreshold: options.inferenceThreshold,
      top: options.top,
      waveSize: options.waveSize,
      maxWaves: options.maxWaves,
      granularity: options.granularity,
      contentionDepth: options.contentionDepth,
    },
    summary,
    summaryLine: summaryLine(summary),
    waves,
    subdivide,
    triage,
    held,
    deferred,
    // The plan shares the conflicts that carry nothing beyond its four fields (most of them): a
    // plan of n issues that all conflict lists n²/2 of them.
    conflicts: listed.map((c) => (c.chain === undefined && c.rule === undefined ? c : { a: c.a, b: c.b, kind: c.kind, detail: c.detail })),
    warnings,
  };
  return { plan, options, tree, selected, scopes, leaves, buckets, conflicts: listed, units, candidates: inference.candidates, inferred: inference.inferred };
}

/** Plans the waves of a backlog. Pure: the same input gives the same plan, whatever its order. */
/** Why a lease holds an issue, for people: the overlap, the import chain, or the issue running alone. */
export function heldReason(lease: { lane: string; holder: string; until: string }, paths: readonly string[], via?: string): string {
  const by = `leased by ${lease.holder} until ${lease.until}`;
  if (paths.some((p) => lanesOverlap(p, lease.lane))) return `its scope overlaps ${lease.lane}, ${by}`;
  if (via) return `${via}, and ${lease.lane} is ${by}`;
  return `it runs alone (serial) and ${lease.lane} is ${by}`;
}

export function planWaves(input: PlanInput): Plan {
  return analyzePlan(input).plan;
}

export { priorityLabel, rankIssues };
