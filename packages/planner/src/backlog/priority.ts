/**
 * Priority from labels: `P0`–`P3`, `priority:critical|high|medium|low` (also `priority/…` and
 * `priority: …`), plus the ranks a config adds. Lower rank is more urgent; an issue with several
 * priority labels takes the most urgent one; an issue with none ranks after every labelled one.
 */
const NAMED_RANKS: Record<string, number> = { critical: 0, urgent: 0, high: 1, medium: 2, normal: 2, low: 3 };

export const UNPRIORITISED = Number.POSITIVE_INFINITY;

/** The most labels a config may rank (a repository's own config is untrusted: red team L2). */
export const MAX_PRIORITY_LABELS = 1_000;

/** A config's labels by their trimmed, lower-cased names (the first of a name wins), made once per config. */
const customByName = new WeakMap<Readonly<Record<string, number>>, Map<string, number>>();

function customRanks(custom: Readonly<Record<string, number>>): Map<string, number> {
  let byName = customByName.get(custom);
  if (!byName) {
    byName = new Map();
    for (const [name, rank] of Object.entries(custom).slice(0, MAX_PRIORITY_LABELS)) {
      const key = name.trim().toLowerCase();
      if (!byName.has(key)) byName.set(key, rank);
    }
    customByName.set(custom, byName);
  }
  return byName;
}

export function labelRank(label: string, custom: Readonly<Record<string, number>> = {}): number | null {
  const lower = label.trim().toLowerCase();
  const own = customRanks(custom).get(lower);
  if (own !== undefined) return own;
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
