/**
 * When a lease is refused at dispatch time, the wave takes the next candidate instead: the most
 * urgent dispatchable issue not yet considered that fits beside the issues already started —
 * no conflict with any of them, no dependency on an issue of the plan still to do, room under
 * the wave size and the non-default-tier cap, and a serial issue only into an empty wave.
 */
import { DEFAULT_TIER, routeTier } from '../classify/route-tier.js';
import type { PlanAnalysis } from '../plan.js';
import type { IssueNumber } from '../types.js';

export function nextCandidate(analysis: PlanAnalysis, started: ReadonlySet<IssueNumber>, considered: ReadonlySet<IssueNumber>): IssueNumber | null {
  const { options } = analysis;
  const units = new Map(analysis.units.map((u) => [u.number, u]));
  const dispatchable = new Set(units.keys());
  // The issues a started one conflicts with (not a key per pair: a plan may list n²/2 of them).
  const clashes = new Set<IssueNumber>();
  for (const c of analysis.conflicts) {
    if (c.kind === 'serial') continue;
    if (started.has(c.a)) clashes.add(c.b);
    if (started.has(c.b)) clashes.add(c.a);
  }
  const tierOf = (n: number) => routeTier(analysis.scopes.get(n)?.category ?? null, options.routing).tier;
  const startedUnits = [...started].map((n) => units.get(n)).filter((u) => u !== undefined);
  if (startedUnits.some((u) => u.serial)) return null; // a serial issue runs alone
  if (started.size >= options.waveSize) return null;
  const heavy = [...started].filter((n) => tierOf(n) !== DEFAULT_TIER).length;
  for (const issue of analysis.selected) {
    const n = issue.number;
    const unit = units.get(n);
    if (!unit || started.has(n) || considered.has(n)) continue;
    if (unit.serial && started.size > 0) continue;
    if (unit.dependsOn.some((dep) => dispatchable.has(dep))) continue; // waits for an issue still to do
    if (clashes.has(n)) continue;
    if (tierOf(n) !== DEFAULT_TIER && heavy >= (options.routing?.maxNonDefaultConcurrent ?? Infinity)) continue;
    return n;
  }
  return null;
}
