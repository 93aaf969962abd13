/**
 * How well a plan predicted what an agent would touch: the predicted scope (its leaves,
 * each with the sources that named it) against the files the agent actually changed.
 *
 * - precision: the share of predicted leaves the agent touched (a directory leaf is touched when
 *   any changed file lies under it, so a leaf counts once however many files it holds);
 * - recall: the share of changed files some predicted leaf covers;
 * - per source (title, body, label, config): the same two figures for the leaves that source named;
 * - at coarser granularity: the recall had leaves been rolled up to their directories or packages,
 *   which tells whether `granularity` should change;
 * - with imports: the recall had a file one import away from a leaf (either direction) counted as
 *   predicted, which tells how much `contentionDepth` protects.
 *
 * A path a live fence granted while the agent ran (a fence extension) is in the fence for the
 * audit, but never a predicted leaf here: the leaves are the plan's prediction, kept in the run
 * record before the run started, so an extension the agent changed is a miss of the plan.
 *
 * Pure; sums add up across runs, so a wave's or a history's figures are micro-averages.
 */
import { containsPath, parentDir } from '../paths/repo-paths.js';
import type { ScopeSource } from '../scope/extract-scope.js';
import type { RepoPath } from '../types.js';

export const SCOPE_SOURCES: readonly ScopeSource[] = ['title', 'body', 'label', 'config'];

export interface PredictedLeaf {
  /** A file, or a directory written with a trailing `/`. */
  path: string;
  sources: ScopeSource[];
}

export interface Tally {
  /** Predicted leaves. */
  predicted: number;
  /** Predicted leaves the agent touched. */
  touched: number;
  /** Files the agent changed. */
  changed: number;
  /** Changed files a predicted leaf covers. */
  covered: number;
}

export interface AccuracySums extends Tally {
  bySource: Record<ScopeSource, Tally>;
  /** Changed files covered had the leaves been directories / packages. */
  coveredByDir: number;
  coveredByPackage: number;
  /** Changed files covered, or one import away from a file a leaf covers. */
  coveredByImports: number;
  runs: number;
}

export interface Accuracy extends AccuracySums {
  precision: number | null;
  recall: number | null;
  recallByDir: number | null;
  recallByPackage: number | null;
  recallByImports: number | null;
  sources: { source: ScopeSource; predicted: number; touched: number; covered: number; precision: number | null; recall: number | null }[];
}

export interface RunAccuracy extends Accuracy {
  /** Changed files no leaf predicted. */
  missed: RepoPath[];
  /** Predicted leaves the agent never touched. */
  unused: string[];
}

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 1000) / 1000);
const emptyTally = (): Tally => ({ predicted: 0, touched: 0, changed: 0, covered: 0 });

function covers(leaf: string, file: RepoPath): boolean {
  return leaf.endsWith('/') ? file.startsWith(leaf) : leaf === file;
}

/** The package directory holding a path: the deepest one that contains it ('' for none). */
function packageOf(path: RepoPath, packageDirs: readonly string[]): string | null {
  let best: string | null = null;
  for (const dir of packageDirs) if (dir !== '' && containsPath(dir, path) && (best === null || dir.length > best.length)) best = dir;
  return best;
}

export function finishAccuracy(sums: AccuracySums): Accuracy {
  return {
    ...sums,
    precision: ratio(sums.touched, sums.predicted),
    recall: ratio(sums.covered, sums.changed),
    recallByDir: ratio(sums.coveredByDir, sums.changed),
    recallByPackage: ratio(sums.coveredByPackage, sums.changed),
    recallByImports: ratio(sums.coveredByImports, sums.changed),
    sources: SCOPE_SOURCES.map((source) => {
      const t = sums.bySource[source];
      return { source, predicted: t.predicted, touched: t.touched, covered: t.covered, precision: ratio(t.touched, t.predicted), recall: ratio(t.covered, sums.changed) };
    }).filter((s) => s.predicted > 0),
  };
}

export function scopeAccuracy(
  predicted: readonly PredictedLeaf[],
  changedFiles: readonly RepoPath[],
  packageDirs: readonly string[] = [],
  /** The files a file imports or is imported by (none when the graph is not known). */
  neighbours: (file: RepoPath) => readonly RepoPath[] = () => [],
): RunAccuracy {
  const changed = [...new Set(changedFiles)].sort();
  const bySource = Object.fromEntries(SCOPE_SOURCES.map((s) => [s, emptyTally()])) as Record<ScopeSource, Tally>;
  const touchedLeaf = predicted.map((leaf) => changed.some((file) => covers(leaf.path, file)));
  const isCovered = (file: RepoPath, leaves: readonly PredictedLeaf[]) => leaves.some((leaf) => covers(leaf.path, file));
  for (const source of SCOPE_SOURCES) {
    const leaves = predicted.filter((l) => l.sources.includes(source));
    bySource[source] = {
      predicted: leaves.length,
      touched: predicted.filter((l, i) => l.sources.includes(source) && touchedLeaf[i]).length,
      changed: changed.length,
      covered: changed.filter((file) => isCovered(file, leaves)).length,
    };
  }
  const leafDirs = predicted.map((l) => (l.path.endsWith('/') ? l.path.slice(0, -1) : parentDir(l.path)));
  const leafPackages = new Set(predicted.map((l) => packageOf(l.path.replace(/\/$/, ''), packageDirs)).filter((p): p is string => p !== null));
  const missed = changed.filter((file) => !isCovered(file, predicted));
  const sums: AccuracySums = {
    predicted: predicted.length,
    touched: touchedLeaf.filter(Boolean).length,
    changed: changed.length,
    covered: changed.length - missed.length,
    bySource,
    coveredByDir: changed.filter((file) => isCovered(file, predicted) || leafDirs.some((dir) => (dir === '' ? !file.includes('/') : containsPath(dir, file)))).length,
    coveredByPackage: changed.filter((file) => {
      if (isCovered(file, predicted)) return true;
      const pkg = packageOf(file, packageDirs);
      return pkg !== null && leafPackages.has(pkg);
    }).length,
    coveredByImports: changed.filter((file) => isCovered(file, predicted) || neighbours(file).some((n) => isCovered(n, predicted))).length,
    runs: 1,
  };
  return { ...finishAccuracy(sums), missed, unused: predicted.filter((_, i) => !touchedLeaf[i]).map((l) => l.path) };
}

/** The sums of several runs' accuracy: micro-averages, so a run that changed more weighs more. */
export function sumAccuracy(runs: readonly AccuracySums[]): Accuracy {
  const total: AccuracySums = {
    ...emptyTally(),
    bySource: Object.fromEntries(SCOPE_SOURCES.map((s) => [s, emptyTally()])) as Record<ScopeSource, Tally>,
    coveredByDir: 0,
    coveredByPackage: 0,
    coveredByImports: 0,
    runs: 0,
  };
  for (const run of runs) {
    total.predicted += run.predicted;
    total.touched += run.touched;
    total.changed += run.changed;
    total.covered += run.covered;
    total.coveredByDir += run.coveredByDir;
    total.coveredByPackage += run.coveredByPackage;
    total.coveredByImports += run.coveredByImports;
    total.runs += run.runs;
    for (const source of SCOPE_SOURCES) {
      const from = run.bySource[source];
      const into = total.bySource[source];
      into.predicted += from.predicted;
      into.touched += from.touched;
      into.changed += from.changed;
      into.covered += from.covered;
    }
  }
  return finishAccuracy(total);
}
