/**
 * Priority from labels: `P0`–`P3`, `priority:critical|high|medium|low` (also `priority/…` and
 * `priority: …`), plus the ranks a config adds. Lower rank is more urgent; an issue with several
 * priority labels takes the most urgent one; an issue with none ranks after every labelled one.
 */
const NAMED_RANKS: Record<string, number> = { critical: 0, urgent: 0, high: 1, medium: 2, normal: 2, low: 3 };

export const UNPRIORITISED = Number.POSITIVE_INFINITY;

export function labelRank(label: string, custom: Readonly<Record<string, number>> = {}): number | null {
  const lower = label.trim().toLowerCase();
  for (const [name, rank] of Object.entries(custom)) {
    if (name.trim().toLowerCase() === lower) return rank;
  }
  const p = /^p([0-3])$/.exec(lower);
  if (p) return Number(p[1]);
  const named = /^priority\s*[:/]\s*(\S+)$/.exec(lower);
  if (named) {
    const value = named[1]!;
    if (Object.hasOwn(NAMED_RANKS, value)) return NAMED_RANKS[value]!; // not `in`: `priority:constructor` is no rank
    const pv = /^p?([0-3])$/.exec(value);
    if (pv) return Number(pv[1]);
  }
  return null;
}

export function priorityRank(labels: readonly string[], custom: Readonly<Record<string, number>> = {}): number {
  let best = UNPRIORITISED;
  for (const label of labels) {
    const rank = labelRank(label, custom);
    if (rank !== null && rank < best) best = rank;
  }
  return best;
}

/** The label that gave the rank, for display (`P1`, `priority:high`), or null. */
export function priorityLabel(labels: readonly string[], custom: Readonly<Record<string, number>> = {}): string | null {
  const rank = priorityRank(labels, custom);
  if (rank === UNPRIORITISED) return null;
  return labels.find((label) => labelRank(label, custom) === rank) ?? null;
}
