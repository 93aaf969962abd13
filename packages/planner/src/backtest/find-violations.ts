/**
 * The pairs a plan put in one wave although they truly conflict — what two agents would have
 * collided on — with the truth's evidence. Depends only on which issues share a wave, never on
 * the order they are listed in. Pure.
 */
import type { IssueNumber } from '../types.js';
import { pairKey, type TrueConflict, type TruthEvidence } from './true-conflicts.js';

export interface Violation {
  /** 1-based index of the wave. */
  wave: number;
  a: IssueNumber;
  b: IssueNumber;
  evidence: TruthEvidence[];
}

export function findViolations(waves: readonly (readonly IssueNumber[])[], truth: ReadonlyMap<string, TrueConflict>): Violation[] {
  const violations: Violation[] = [];
  waves.forEach((members, i) => {
    const sorted = [...members].sort((x, y) => x - y);
    for (let p = 0; p < sorted.length; p++) {
      for (let q = p + 1; q < sorted.length; q++) {
        const conflict = truth.get(pairKey(sorted[p]!, sorted[q]!));
        if (conflict) violations.push({ wave: i + 1, a: conflict.a, b: conflict.b, evidence: conflict.evidence });
      }
    }
  });
  return violations;
}
