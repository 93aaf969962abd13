/**
 * The perfect-knowledge reference a plan's wave count is judged against: first fit in rank
 * order over the true conflict graph, with the same wave size — each issue, oldest first, joins
 * the earliest wave that has room, holds nothing it truly conflicts with and comes after every
 * wave holding an issue it depends on, else opens a new one. A planner that knew every conflict
 * in advance, and nothing more, does this well; it is not a minimum colouring (that would flatter
 * no real planner), and it is deterministic. An issue whose dependency ranks later waits for it
 * (the order is the rank order among the issues whose dependencies are placed). Pure.
 */
import type { IssueNumber } from '../types.js';
import { pairKey } from './true-conflicts.js';

/**
 * Waves of issue numbers, each in rank order. `order` is the rank order; `conflicts` holds
 * `pairKey`s; `precedences` are `[before, after]` pairs (an issue and one that depends on it).
 */
export function referenceWaves(
  order: readonly IssueNumber[],
  conflicts: ReadonlySet<string>,
  waveSize: number,
  precedences: readonly (readonly [IssueNumber, IssueNumber])[] = [],
): IssueNumber[][] {
  const members = new Set(order);
  const before = new Map<IssueNumber, IssueNumber[]>();
  for (const [first, then] of precedences) {
    if (!members.has(first) || !members.has(then) || first === then) continue;
    let list = before.get(then);
    if (!list) before.set(then, (list = []));
    list.push(first);
  }
  const waves: IssueNumber[][] = [];
  const waveOf = new Map<IssueNumber, number>();
  const pending = [...order];
  while (pending.length > 0) {
    // The most senior issue whose dependencies are all placed (all of them, unless a cycle: then the most senior).
    let at = pending.findIndex((issue) => (before.get(issue) ?? []).every((dep) => waveOf.has(dep)));
    if (at < 0) at = 0;
    const issue = pending.splice(at, 1)[0]!;
    const earliest = Math.max(0, ...(before.get(issue) ?? []).map((dep) => (waveOf.get(dep) ?? -1) + 1));
    let index = waves.findIndex((wave, i) => i >= earliest && wave.length < waveSize && wave.every((other) => !conflicts.has(pairKey(issue, other))));
    if (index < 0) {
      // earliest ≤ waves.length: every dependency is in a wave already.
      index = waves.length;
      waves.push([]);
    }
    waves[index]!.push(issue);
    waveOf.set(issue, index);
  }
  return waves;
}
