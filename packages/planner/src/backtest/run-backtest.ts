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
import { bm25Baseline } from './bm25-baseline.js';
import { calibration, fencePath, fenceRecall, firstHit, locatableFiles, localisationFigures, pathsAtBase, rankedFiles, type LocalisationCase } from './localisation.js';
import { simulateLiveFences, type DecideLeases } from './live-fences.js';
import { decideLeases } from '../leases/decide-lease.js';

export interface BacktestInput {
  /** The first-parent commits of the range, oldest first (merges included: they are skipped). */
  commits: readonly HistoryCommit[];
  /** The repository at the base: the parent of the oldest commit. */
  repo: RepoIndex;
  range: { base: string; until: string; since: string | null };
  grade: BacktestGrade;
  /** Commits changing more files than this (docs, markdown and tool-written files aside) are left out. */
  maxFiles: number;
  /** Planner options (the config's, with the flags over them). */
  options?: PlanOptionsInput;
  /** Import edges of an independent judge (default: the repository graph's own). */
  truthEdges?: (TruthEdges & { file: string }) | null;
  /** The lease rule of the live-fence replay (default `decideLeases`, the rule of `waves fence check` and dispatch); null: no replay. */
  decide?: DecideLeases | null;
}

/** How many candidates of each issue the report keeps, and how many the accuracy judges. */
const CANDIDATES_KEPT = 5;

/** The inference of a plan entry, read from the plan as any consumer reads it (absent: none). */
function inferenceOf(entry: unknown): { paths: string[]; inferred: boolean; best: number | null } {
  const e = entry as { candidates?: readonly { path?: unknown; confidence?: unknown }[]; inferred?: unknown };
  const paths = Array.isArray(e.candidates) ? e.candidates.map((c) => c.path).filter((p): p is string => typeof p === 'string') : [];
  const best = Array.isArray(e.candidates) && typeof e.candidates[0]?.confidence === 'number' ? e.candidates[0].confidence : null;
  return { paths, inferred: e.inferred === true, best };
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

/** The inference mode and threshold of the plan's options (infer's `inference`, `inferenceThreshold`); null when the planner has none. */
function inferenceOptions(options: object): { mode: 'off' | 'suggest' | 'plan'; threshold: number | null } | null {
  const o = options as { inference?: unknown; inferenceThreshold?: unknown };
  if (o.inference !== 'off' && o.inference !== 'suggest' && o.inference !== 'plan') return null;
  return { mode: o.inference, threshold: typeof o.inferenceThreshold === 'number' ? o.inferenceThreshold : null };
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
  const truthBase = {
    isDir: (path: RepoPath) => analysis.tree.isDir(path),
    importsOf: (file: RepoPath) => (given ? (given.get(file) ?? []) : graph.hasNode(file) ? graph.outNeighbors(file) : []),
  };
  const truth: TrueConflict[] = findTrueConflicts(backlog.issues, truthBase);

  const waves = analysis.plan.waves.map((wave) => wave.issues.map((issue) => issue.number));
  const { violations, reference, summary } = judgePlan({
    order: backlog.issues.map((issue) => issue.number),
    truth,
    waves,
    waveSize: analysis.options.waveSize,
    precedences: analysis.units.flatMap((unit) => unit.dependsOn.map((dep) => [dep, unit.number] as const)),
  });
  const rules = measureRuleEffects({ analysis, lifted, graph, truth });

  // Scope inference, judged file by file against what each commit changed, beside plain BM25.
  const entries = new Map<IssueNumber, { paths: string[]; inferred: boolean; best: number | null; named: boolean; fence: string[] | null }>();
  for (const wave of analysis.plan.waves) {
    for (const entry of wave.issues) {
      const inference = inferenceOf(entry);
      const fence = entry.paths.map(fencePath);
      // An issue whose text names its files is localised by them: they come first, then the candidates.
      const { ranked: paths, named } = rankedFiles({ fence, inferred: inference.inferred, candidates: inference.paths }, (path) => analysis.tree.isFile(path));
      entries.set(entry.number, { ...inference, paths, named, fence });
    }
  }
  for (const list of [analysis.plan.triage, analysis.plan.subdivide, analysis.plan.deferred, analysis.plan.held]) {
    for (const entry of list) if (!entries.has(entry.number)) entries.set(entry.number, { ...inferenceOf(entry), named: false, fence: null });
  }
  // Judged at the base, where the plan was made: renamed files by their old paths, files created
  // within the range (not there to be found) left out.
  const atBase = pathsAtBase(input.commits, (path) => analysis.tree.isFile(path));
  const truthFiles = new Map(backlog.issues.map((issue) => [issue.number, atBase(issue.sha, locatableFiles(issue.files))]));
  const baseline = bm25Baseline(
    input.repo.files,
    planInput.issues.map((issue) => ({ number: issue.number, text: `${issue.title}\n${issue.body}` })),
    CANDIDATES_KEPT,
  );
  const inferredCase = (n: IssueNumber): LocalisationCase => ({ number: n, truth: truthFiles.get(n)!, ranked: entries.get(n)?.paths ?? [] });
  const baselineCase = (n: IssueNumber): LocalisationCase => ({ number: n, truth: truthFiles.get(n)!, ranked: baseline.get(n) ?? [] });
  const numbers = backlog.issues.map((issue) => issue.number);
  const withCandidates = numbers.filter((n) => (entries.get(n)?.paths.length ?? 0) > 0);
  const inferredDispatched = numbers.filter((n) => entries.get(n)?.inferred === true && entries.get(n)?.fence !== null);
  const inferredSet = new Set(inferredDispatched);
  const baselineFigures = localisationFigures(numbers.map(baselineCase));
  const localisation = {
    all: localisationFigures(numbers.map(inferredCase)),
    candidates: localisationFigures(withCandidates.map(inferredCase)),
    baseline: baselineFigures,
    baselineOnCandidates: localisationFigures(withCandidates.map(baselineCase)),
    goalAt5: Math.max(0.6, baselineFigures.at5.any + (1 - baselineFigures.at5.any) / 2),
    inferredDispatched: inferredDispatched.length,
    inferredViolations: violations.filter((v) => inferredSet.has(v.a) || inferredSet.has(v.b)).length,
    fence: fenceRecall(inferredDispatched.map((n) => ({ truth: truthFiles.get(n)!, fence: entries.get(n)!.fence! }))),
    // The best inferred candidate of each locatable issue that names no file, against the truth.
    calibration: calibration(
      numbers.flatMap((n) => {
        const e = entries.get(n);
        const truth = truthFiles.get(n)!;
        return e && !e.named && e.best !== null && truth.length > 0 ? [{ confidence: e.best, hit: truth.includes(e.paths[0]!) }] : [];
      }),
    ),
  };

  // Live fences, replayed wave by wave.
  const fences = new Map<IssueNumber, string[]>();
  for (const wave of analysis.plan.waves) for (const entry of wave.issues) fences.set(entry.number, entry.paths.map(fencePath));
  const decide = input.decide === undefined ? decideLeases : input.decide;
  const live = decide
    ? simulateLiveFences({
        waves,
        fences,
        serialIssues: new Set(analysis.plan.waves.flatMap((wave) => wave.issues.filter((entry) => entry.serial !== null).map((entry) => entry.number))),
        issues: backlog.issues,
        rules: { graph, tree: analysis.tree, contentionDepth: analysis.options.contentionDepth, serial: analysis.options.serial },
        base: truthBase,
        decide,
      })
    : null;
  const liveFences = live && {
    writes: live.writes,
    inFence: live.inFence,
    granted: live.granted,
    refused: live.refused,
    person: live.person,
    issuesStopped: live.issuesStopped,
    planViolations: violations.length,
    collisions: live.collisions.length,
    collisionPairs: live.collisions,
    events: live.events,
  };

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
      fence: fences.get(issue.number) ?? null,
      inferred: entries.get(issue.number)?.inferred ?? false,
      truthFiles: truthFiles.get(issue.number)!,
      candidates: (entries.get(issue.number)?.paths ?? []).slice(0, CANDIDATES_KEPT),
      candidateHit: firstHit(inferredCase(issue.number)),
      baseline: baseline.get(issue.number) ?? [],
      baselineHit: firstHit(baselineCase(issue.number)),
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
      inference: inferenceOptions(analysis.options),
      truth: input.truthEdges
        ? { source: input.truthEdges.format, file: input.truthEdges.file, edges: input.truthEdges.edges.length }
        : { source: 'waves', file: null, edges: graph.size },
    },
    summary,
    localisation,
    liveFences,
    rules,
    violations,
    issues,
    waves,
    referenceWaves: reference,
    trueConflicts: truth,
    skipped: backlog.skipped,
  };
}
