/**
 * Issue reports with known fixes, planned as a backlog and judged file by file: the measure of
 * scope inference on full issue text (stack traces, error messages, names, prose), where a
 * history's commit subjects give only titles. Each report carries the files its real fix changed
 * and the file an experienced maintainer would name first from its evidence; the plan (made with
 * the caller's options, `inference: plan` or `suggest`) is read as any consumer reads it — the
 * candidates and the fence of each entry — and judged like the backtest judges a history:
 * Acc@1 and Acc@5 (any and all), per evidence kind too, the share whose best candidate is the
 * expected one, fence recall, the share dispatched, beside the plain BM25 baseline. Pure.
 */
import { analyzePlan } from '../plan.js';
import type { PlanOptionsInput } from '../schema/options-schema.js';
import type { EvidenceKind } from '../schema/plan-schema.js';
import type { BacklogIssue, IssueNumber, RepoIndex, RepoPath } from '../types.js';
import { bm25Baseline } from './bm25-baseline.js';
import { fencePath, fenceRecall, firstHit, localisationFigures, rankedFiles, type FenceRecall, type LocalisationFigures } from './localisation.js';

/** The kinds of evidence an issue report can hold (the plan's evidence kinds but `lane`, which comes from the config). */
export const REPORT_EVIDENCE_KINDS = ['frame', 'path', 'identifier', 'filename', 'message', 'scope', 'words', 'neighbour'] as const satisfies readonly EvidenceKind[];
export type ReportEvidenceKind = (typeof REPORT_EVIDENCE_KINDS)[number];

export interface IssueReport {
  id: string;
  title: string;
  body: string;
  /** The files the real fix changed (tests aside), at the base. */
  fixFiles: readonly RepoPath[];
  /** The file the evidence points at first. */
  expectedTop: RepoPath;
  /** The kinds of evidence the report holds. */
  kinds: readonly ReportEvidenceKind[];
}

export interface JudgedReport {
  id: string;
  number: IssueNumber;
  kinds: readonly ReportEvidenceKind[];
  fixFiles: readonly RepoPath[];
  expectedTop: RepoPath;
  /** What the plan locates, best first: the files the report names (its fence, when not inferred), then its candidates. */
  candidates: RepoPath[];
  /** Rank of the first fix file among the candidates (null: none). */
  hit: number | null;
  /** Rank of the expected file among the candidates (null: none). */
  expectedRank: number | null;
  baseline: RepoPath[];
  baselineHit: number | null;
  /** Where the plan put it. */
  bucket: 'wave' | 'triage' | 'other';
  inferred: boolean;
  /** Its fence when dispatched, as repository paths. */
  fence: RepoPath[] | null;
  /** The triage reason, or null. */
  reason: string | null;
}

export interface ReportsJudgement {
  reports: JudgedReport[];
  figures: LocalisationFigures;
  baseline: LocalisationFigures;
  /** Share of the reports whose best candidate is the expected file. */
  expectedFirst: number;
  byKind: { kind: ReportEvidenceKind; reports: number; figures: LocalisationFigures; expectedFirst: number }[];
  dispatched: number;
  dispatchedShare: number;
  inferredDispatched: number;
  fence: FenceRecall;
  waves: number;
}

function inferenceOf(entry: unknown): { paths: string[]; inferred: boolean } {
  const e = entry as { candidates?: readonly { path?: unknown }[]; inferred?: unknown };
  const paths = Array.isArray(e.candidates) ? e.candidates.map((c) => c.path).filter((p): p is string => typeof p === 'string') : [];
  return { paths, inferred: e.inferred === true };
}

export function judgeReports(reports: readonly IssueReport[], repo: RepoIndex, options: PlanOptionsInput = {}): ReportsJudgement {
  const everything = Math.max(1, reports.length);
  const issues: BacklogIssue[] = reports.map((report, i) => ({
    number: i + 1,
    title: report.title,
    body: report.body,
    labels: [],
    state: 'open',
    createdAt: null,
    url: null,
    sortOrder: i,
  }));
  const analysis = analyzePlan({ issues, repo, options: { ...options, top: everything, maxWaves: everything, requireAcceptanceCriteria: false }, now: 0 });
  const entries = new Map<IssueNumber, { paths: string[]; inferred: boolean; bucket: JudgedReport['bucket']; fence: RepoPath[] | null; reason: string | null }>();
  for (const wave of analysis.plan.waves) {
    for (const entry of wave.issues) {
      // A report that names its files is localised by them first, as the backtest reads a plan.
      const inference = inferenceOf(entry);
      const fence = entry.paths.map(fencePath);
      const { ranked } = rankedFiles({ fence, inferred: inference.inferred, candidates: inference.paths }, (path) => analysis.tree.isFile(path));
      entries.set(entry.number, { paths: ranked, inferred: inference.inferred, bucket: 'wave', fence, reason: null });
    }
  }
  for (const entry of analysis.plan.triage) entries.set(entry.number, { ...inferenceOf(entry), bucket: 'triage', fence: null, reason: entry.reason });
  for (const list of [analysis.plan.subdivide, analysis.plan.deferred, analysis.plan.held]) {
    for (const entry of list) if (!entries.has(entry.number)) entries.set(entry.number, { ...inferenceOf(entry), bucket: 'other', fence: null, reason: 'reason' in entry ? (entry.reason ?? null) : null });
  }
  const baseline = bm25Baseline(
    repo.files,
    issues.map((issue) => ({ number: issue.number, text: `${issue.title}\n${issue.body}` })),
  );
  const judged: JudgedReport[] = reports.map((report, i) => {
    const number = i + 1;
    const entry = entries.get(number)!;
    const rank = entry.paths.indexOf(report.expectedTop);
    return {
      id: report.id,
      number,
      kinds: report.kinds,
      fixFiles: report.fixFiles,
      expectedTop: report.expectedTop,
      candidates: entry.paths,
      hit: firstHit({ number, truth: report.fixFiles, ranked: entry.paths }),
      expectedRank: rank < 0 ? null : rank + 1,
      baseline: baseline.get(number) ?? [],
      baselineHit: firstHit({ number, truth: report.fixFiles, ranked: baseline.get(number) ?? [] }),
      bucket: entry.bucket,
      inferred: entry.inferred,
      fence: entry.fence,
      reason: entry.reason,
    };
  });
  const figuresOf = (list: readonly JudgedReport[]) => localisationFigures(list.map((r) => ({ number: r.number, truth: r.fixFiles, ranked: r.candidates })));
  const expectedFirst = (list: readonly JudgedReport[]) => (list.length === 0 ? 0 : list.filter((r) => r.expectedRank === 1).length / list.length);
  const dispatched = judged.filter((r) => r.bucket === 'wave');
  const inferred = dispatched.filter((r) => r.inferred);
  return {
    reports: judged,
    figures: figuresOf(judged),
    baseline: localisationFigures(judged.map((r) => ({ number: r.number, truth: r.fixFiles, ranked: r.baseline }))),
    expectedFirst: expectedFirst(judged),
    byKind: REPORT_EVIDENCE_KINDS.map((kind) => {
      const list = judged.filter((r) => r.kinds.includes(kind));
      return { kind, reports: list.length, figures: figuresOf(list), expectedFirst: expectedFirst(list) };
    }),
    dispatched: dispatched.length,
    dispatchedShare: judged.length === 0 ? 0 : dispatched.length / judged.length,
    inferredDispatched: inferred.length,
    fence: fenceRecall(inferred.map((r) => ({ truth: r.fixFiles, fence: r.fence! }))),
    waves: analysis.plan.waves.length,
  };
}
