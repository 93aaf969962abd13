/**
 * How well a ranked list of candidate files locates what a commit really changed — the measure of
 * scope inference, counted as the SWE-bench localisation papers count it, file-level:
 *
 * - **Acc@k (any)**: a true file is among the top k candidates;
 * - **Acc@k (all)**: every true file is among the top k;
 * - **fence recall**: of the true files of an issue dispatched on an inferred fence, the share
 *   the fence holds (a file inside a fenced directory counts), averaged over those issues, and the
 *   share of them whose fence holds every true file.
 *
 * The true files of a commit are the code files it edits or deletes that are not tests: what
 * exists at the base to be found (a file the commit creates cannot be a candidate), and the part
 * of a fix the localisation papers count (the tests come with the fix, not with the report).
 * They are judged by their paths at the base, where the backlog is planned: a file an earlier
 * commit of the range renamed is followed back to its old path, and one an earlier commit created
 * is not there to be found. An issue with no such file is not locatable, and counts in no rate.
 * An issue without candidates is a miss. Pure.
 */
import type { IssueNumber, RepoPath } from '../types.js';
import { containsPath, withoutTrailingSlashes } from '../paths/repo-paths.js';
import { isCodeFile, isTestFile, type ChangedFile, type HistoryCommit } from './backlog-from-commits.js';

/** The files a localisation is judged against (see above), sorted. */
export function locatableFiles(files: readonly ChangedFile[]): RepoPath[] {
  return files
    .filter((f) => f.change !== 'create' && isCodeFile(f.path) && !isTestFile(f.path))
    .map((f) => f.path)
    .sort();
}

/**
 * Paths of a commit of the range at the base: each followed back through the renames of the
 * commits before it (newest first), kept when the base has that file and no commit between
 * created it anew (deleted, then added again). Sorted, without repeats.
 */
export function pathsAtBase(commits: readonly HistoryCommit[], isFileAtBase: (path: RepoPath) => boolean): (sha: string, paths: readonly RepoPath[]) => RepoPath[] {
  const position = new Map(commits.map((commit, i) => [commit.sha, i] as const));
  const renamed = commits.map((commit) => (commit.renames?.length ? new Map(commit.renames.map((r) => [r.to, r.from] as const)) : null));
  const created = commits.map((commit) => new Set(commit.files.filter((f) => f.change === 'create').map((f) => f.path)));
  return (sha, paths) => {
    const at = position.get(sha) ?? 0;
    const out = new Set<RepoPath>();
    for (const start of paths) {
      let path: RepoPath | null = start;
      for (let i = at - 1; i >= 0 && path !== null; i--) {
        const from: RepoPath | undefined = renamed[i]?.get(path);
        // Renamed there: followed to its old name. Created there (not by a rename): a file the
        // base did not have, whatever held that path before.
        if (from !== undefined) path = from;
        else if (created[i]!.has(path)) path = null;
      }
      if (path !== null && isFileAtBase(path)) out.add(path);
    }
    return [...out].sort();
  };
}

/** A fence lane as a plan lists it (`src/`, `src/a.ts`, `/` or `./` for the root) as a repository path. */
export function fencePath(label: string): RepoPath {
  let path = withoutTrailingSlashes(label);
  while (path.startsWith('./')) path = path.slice(2);
  return path === '.' ? '' : path;
}

/**
 * The files a plan entry locates, best first, as both judges (the backtest and the issue reports)
 * read a plan: an issue whose text names its files is localised by them — its fence's files, when
 * the fence was not inferred — and then by its candidates (which never repeat them).
 */
export function rankedFiles(
  entry: { fence: readonly RepoPath[] | null; inferred: boolean; candidates: readonly RepoPath[] },
  isFile: (path: RepoPath) => boolean,
): { ranked: RepoPath[]; named: boolean } {
  const named = entry.inferred || entry.fence === null ? [] : entry.fence.filter(isFile);
  return { ranked: [...named, ...entry.candidates.filter((path) => !named.includes(path))], named: named.length > 0 };
}

export interface LocalisationCase {
  number: IssueNumber;
  /** The true files (`locatableFiles`). */
  truth: readonly RepoPath[];
  /** Candidate files, best first (any length; the top k are judged). */
  ranked: readonly RepoPath[];
}

export interface AccuracyAtK {
  /** Share of the locatable issues with a true file among the top k. */
  any: number;
  /** Share of the locatable issues with every true file among the top k. */
  all: number;
}

export interface LocalisationFigures {
  /** Issues judged: those with at least one true file. */
  locatable: number;
  /** Of those, issues with at least one candidate. */
  withCandidates: number;
  at1: AccuracyAtK;
  at5: AccuracyAtK;
}

/** 1-based rank of the first true file among the candidates, or null. */
export function firstHit(c: LocalisationCase): number | null {
  const truth = new Set(c.truth);
  const at = c.ranked.findIndex((path) => truth.has(path));
  return at < 0 ? null : at + 1;
}

function accuracy(cases: readonly LocalisationCase[], k: number): AccuracyAtK {
  if (cases.length === 0) return { any: 0, all: 0 };
  let any = 0;
  let all = 0;
  for (const c of cases) {
    const top = new Set(c.ranked.slice(0, k));
    const found = c.truth.filter((path) => top.has(path)).length;
    if (found > 0) any++;
    if (found === c.truth.length) all++;
  }
  return { any: any / cases.length, all: all / cases.length };
}

export function localisationFigures(cases: readonly LocalisationCase[]): LocalisationFigures {
  const locatable = cases.filter((c) => c.truth.length > 0);
  return {
    locatable: locatable.length,
    withCandidates: locatable.filter((c) => c.ranked.length > 0).length,
    at1: accuracy(locatable, 1),
    at5: accuracy(locatable, 5),
  };
}

export interface CalibrationCase {
  /** The confidence of the issue's best inferred candidate. */
  confidence: number;
  /** Whether that candidate is a true file. */
  hit: boolean;
}

/** The issues whose best candidate had a confidence in [from, to), and how many of those candidates were true files. */
export interface CalibrationBin {
  from: number;
  to: number;
  issues: number;
  hits: number;
}

/**
 * How sure the best candidate was against how often it was right: the issues in tenths of
 * confidence (1 in the last), the empty tenths left out, lowest first — what a team reads to
 * choose its `inferenceThreshold`.
 */
export function calibration(cases: readonly CalibrationCase[]): CalibrationBin[] {
  const bins = new Map<number, CalibrationBin>();
  for (const c of cases) {
    const tenth = Math.min(9, Math.max(0, Math.floor(c.confidence * 10)));
    let bin = bins.get(tenth);
    if (!bin) bins.set(tenth, (bin = { from: tenth / 10, to: (tenth + 1) / 10, issues: 0, hits: 0 }));
    bin.issues++;
    if (c.hit) bin.hits++;
  }
  return [...bins.entries()].sort(([a], [b]) => a - b).map(([, bin]) => bin);
}

export interface FenceCase {
  /** The true files (`locatableFiles`). */
  truth: readonly RepoPath[];
  /** The fence's lanes as repository paths (`fencePath`). */
  fence: readonly RepoPath[];
}

export interface FenceRecall {
  /** Issues judged: dispatched on an inferred fence, with at least one true file. */
  issues: number;
  /** Mean over them of the share of their true files inside the fence (null: none judged). */
  recall: number | null;
  /** Share of them whose fence holds every true file (null: none judged). */
  complete: number | null;
}

export function fenceRecall(cases: readonly FenceCase[]): FenceRecall {
  const judged = cases.filter((c) => c.truth.length > 0);
  if (judged.length === 0) return { issues: 0, recall: null, complete: null };
  let sum = 0;
  let complete = 0;
  for (const c of judged) {
    const inside = c.truth.filter((file) => c.fence.some((lane) => containsPath(lane, file))).length;
    sum += inside / c.truth.length;
    if (inside === c.truth.length) complete++;
  }
  return { issues: judged.length, recall: sum / judged.length, complete: complete / judged.length };
}
