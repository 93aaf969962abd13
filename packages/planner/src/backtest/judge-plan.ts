/**
 * Judges a plan of a replayed backlog by the truth: the violations (pairs of one wave that truly
 * conflict), the waves it used against the perfect-knowledge reference, and the share of issues
 * it dispatched. A function of which issues share a wave and of the history order — the same
 * whatever order a wave lists its issues in, and whatever the history order of consecutive
 * commits that the reference puts in one wave. Pure.
 *
 * NOTE: the reference partitions the issues the plan dispatched, not the whole backlog, with the
 * dependencies the plan respected: the waves ratio then prices only what the planner could not
 * know about the issues it planned. Over the whole backlog, every issue set aside (subdivide,
 * triage) would make the plan look cheaper than perfect knowledge — a planner could buy a better
 * ratio by dispatching less. What it sets aside is the dispatched share's to show.
 */
import type { IssueNumber } from '../types.js';
import { findViolations, type Violation } from './find-violations.js';
import { referenceWaves } from './reference-waves.js';
import { pairKey, type TrueConflict } from './true-conflicts.js';

export interface JudgeInput {
  /** Every issue of the backlog, in rank (history) order. */
  order: readonly IssueNumber[];
  truth: readonly TrueConflict[];
  /** The plan's waves; issues in none were not dispatched. */
  waves: readonly (readonly IssueNumber[])[];
  waveSize: number;
  /** `[before, after]`: the dependencies between dispatched issues the plan respected (none by default). */
  precedences?: readonly (readonly [IssueNumber, IssueNumber])[];
}

export interface Judgement {
  violations: Violation[];
  /** The perfect-knowledge reference of the dispatched issues. */
  reference: IssueNumber[][];
  summary: {
    issues: number;
    dispatched: number;
    dispatchedShare: number;
    waves: number;
    referenceWaves: number;
    wavesRatio: number | null;
    violations: number;
    truePairs: number;
  };
}

export function judgePlan({ order, truth, waves, waveSize, precedences = [] }: JudgeInput): Judgement {
  const byPair = new Map(truth.map((c) => [pairKey(c.a, c.b), c]));
  const violations = findViolations(waves, byPair);
  const planned = new Set(waves.flat());
  const reference = referenceWaves(
    order.filter((n) => planned.has(n)),
    new Set(byPair.keys()),
    waveSize,
    precedences,
  );
  const dispatched = planned.size;
  return {
    violations,
    reference,
    summary: {
      issues: order.length,
      dispatched,
      dispatchedShare: order.length === 0 ? 1 : dispatched / order.length,
      waves: waves.length,
      referenceWaves: reference.length,
      wavesRatio: reference.length === 0 ? null : waves.length / reference.length,
      violations: violations.length,
      truePairs: truth.length,
    },
  };
}
