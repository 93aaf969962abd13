/**
 * `runBacktest(input) → BacktestReport`: replays a range of a repository's history as a backlog,
 * plans it against the repository as it was at the base, and judges the plan by what the commits
 * really touched. Pure — git is read and the base checked out before (adapters):
 *
 *   commits → backlog (by grade) → plan (every issue: no --top, no --max-waves cut)
 *           → truth → violations, perfect-knowledge reference, rule effects → report
 *
 * The plan is made by the planner's own `analyzePlan` with the caller's options, except that
 * every issue is evaluated and every wave kept (the backtest measures the partition of the whole
 * backlog, not its first waves), and no acceptance section is required (a commit has none).
 */
import { analyzePlan } from '../plan.js';
import { BACKTEST_SCHEMA_VERSION, type BacktestReport } from '../schema/backtest-schema.js';
import type { PlanOptionsInput } from '../schema/options-schema.js';
import type { IssueNumber, RepoIndex, RepoPath } from '../types.js';
import { backlogFromCommits, type HistoryCommit } from './backlog-from-commits.js';
import { toBacklogIssue, type BacktestGrade } from './issue-body.js';
import { judgePlan } from './judge-plan.js';
import { measureRuleEffects } from './rule-effects.js';
import { findTrueConflicts, type TrueConflict } from './true-conflicts.js';
import type { TruthEdges } from './truth-edges.js';

export interface BacktestInput {
  /** The first-parent commits of the range, oldest first (merges included: they are skipped). */
  commits: readonly HistoryCommit[];
  /** The repository at the base: the parent of the oldest commit. */
  repo: RepoIndex;
  range: { base: string; until: string; since: string | null };
  grade: BacktestGrade;
  /** Commits changing more files than this (docs, markdown and lockfiles aside) are left out. */
  maxFiles: number;
  /** Planner options (the config's, with the flags over them). */
  options?: PlanOptionsInput;
  /** Import edges of an independent judge (default: the repository graph's own). */
  truthEdges?: (TruthEdges & { file: string }) | null;
}

/** No limit the planner's options accept, for lifting the subdivide limits. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

function importsIndex(edges: readonly (readonly [RepoPath, RepoPath])[]): Map<RepoPath, RepoPath[]> {
  const out = new Map<RepoPath, RepoPath[]>();
  for (const [from, to] of edges) {
    let list = out.get(from);
    if (!list) out.set(from, (list = []));
    if (!list.includes(to)) list.push(to);
  }
  return out;
}

export function runBacktest(input: BacktestInput): BacktestReport {
  const backlog = backlogFromCommits(input.commits, { maxFiles: input.maxFiles });
  const everything = Math.max(1, backlog.issues.length);
  const options: PlanOptionsInput = { ...input.options, top: everything, maxWaves: everything, requireAcceptanceCriteria: false };
  const planInput = { issues: backlog.issues.map((issue) => toBacklogIssue(issue, input.grade)), repo: input.repo, options, now: 0 };
  const analysis = analyzePlan(planInput);
  const subdivided = [...analysis.buckets.values()].some((b) => b.bucket === 'subdivide');
  const lifted = subdivided
    ? analyzePlan({ ...planInput, options: { ...options, maxFiles: UNLIMITED, maxSubsystems: UNLIMITED, maxSteps: UNLIMITED } })
    : analysis;

  // The truth, at the base.
  const graph = input.repo.graph;
  const given = input.truthEdges ? importsIndex(input.truthEdges.edges) : null;
  const truth: TrueConflict[] = findTrueConflicts(backlog.issues, {
    isDir: (path) => analysis.tree.isDir(path),
    importsOf: (file) => (given ? (given.get(file) ?? []) : graph.hasNode(file) ? graph.outNeighbors(file) : []),
  });

  const waves = analysis.plan.waves.map((wave) => wave.issues.map((issue) => issue.number));
  const { violations, reference, summary } = judgePlan({
    order: backlog.issues.map((issue) => issue.number),
    truth,
    waves,
    waveSize: analysis.options.waveSize,
    precedences: analysis.units.flatMap((unit) => unit.dependsOn.map((dep) => [dep, unit.number] as const)),
  });
  const rules = measureRuleEffects({ analysis, lifted, graph, truth });

  const waveOf = new Map<IssueNumber, number>();
  waves.forEach((members, i) => members.forEach((n) => waveOf.set(n, i + 1)));
  const referenceOf = new Map<IssueNumber, number>();
  reference.forEach((members, i) => members.forEach((n) => referenceOf.set(n, i + 1)));
  const serialReason = new Map(analysis.plan.waves.flatMap((wave) => wave.issues.map((issue) => [issue.number, issue.serial] as const)));
  const issues = backlog.issues.map((issue) => {
    const bucket = analysis.buckets.get(issue.number)!;
    const inWave = waveOf.get(issue.number) ?? null;
    return {
      number: issue.number,
      sha: issue.sha,
      title: issue.title,
      files: issue.files,
      bucket: bucket.bucket === 'dispatchable' ? ('wave' as const) : bucket.bucket,
      wave: inWave,
      referenceWave: referenceOf.get(issue.number) ?? null,
      reason: bucket.bucket === 'dispatchable' ? (serialReason.get(issue.number) ?? null) : 'reason' in bucket ? bucket.reason : null,
    };
  });
  return {
    schemaVersion: BACKTEST_SCHEMA_VERSION,
    repo: {
      root: input.repo.root,
      base: input.range.base,
      until: input.range.until,
      since: input.range.since,
      commits: input.commits.length,
      files: input.repo.files.length,
      imports: graph.size,
    },
    options: {
      grade: input.grade,
      maxFiles: input.maxFiles,
      waveSize: analysis.options.waveSize,
      granularity: analysis.options.granularity,
      contentionDepth: analysis.options.contentionDepth,
      truth: input.truthEdges
        ? { source: input.truthEdges.format, file: input.truthEdges.file, edges: input.truthEdges.edges.length }
        : { source: 'waves', file: null, edges: graph.size },
    },
    summary,
    rules,
    violations,
    issues,
    waves,
    referenceWaves: reference,
    trueConflicts: truth,
    skipped: backlog.skipped,
  };
}
