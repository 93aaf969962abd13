/**
 * The perfect-knowledge reference a plan's wave count is judged against: first fit in rank
 * order over the true conflict graph, with the same wave size — each issue, oldest first, joins
 * the earliest wave that has room and holds nothing it truly conflicts with, else opens a new one.
 * A planner that knew every conflict in advance, and nothing more, does this well; it is not a
 * minimum colouring (that would flatter no real planner), and it is deterministic. Pure.
 */
import type { IssueNumber } from '../types.js';
import { pairKey } from './true-conflicts.js';

/** Waves of issue numbers, each in rank order. `order` is the rank order; `conflicts` holds `pairKey`s. */
export function referenceWaves(order: readonly IssueNumber[], conflicts: ReadonlySet<string>, waveSize: number): IssueNumber[][] {
  const waves: IssueNumber[][] = [];
  for (const issue of order) {
    const wave = waves.find((members) => members.length < waveSize && members.every((other) => !conflicts.has(pairKey(issue, other))));
    if (wave) wave.push(issue);
    else waves.push([issue]);
  }
  return waves;
}
