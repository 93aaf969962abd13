/**
 * `explainIssue(analysis, number)`: everything the planner decided about one issue, as data —
 * its bucket and reason, each path of its scope with the text that produced it, every conflict
 * with every other selected issue with the evidence, and why it is not in an earlier wave.
 */
import { heldReason } from '../plan.js';
import { z } from 'zod';
import { serialConflicts, type Conflict } from '../conflicts/find-conflicts.js';
import { leafLabel } from '../conflicts/roll-up-leaves.js';
import type { PlanAnalysis } from '../plan.js';
import { lanesOverlap } from '../leases/fold-leases.js';
import { CandidateSchema } from '../schema/plan-schema.js';
import type { ActiveLease, IssueNumber } from '../types.js';

export const IssueExplanationSchema = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  url: z.string().nullable(),
  /** Where it stands in the backlog's ranking (1 = most urgent), among open issues. */
  rank: z.number().int().positive().nullable(),
  bucket: z.enum(['wave', 'subdivide', 'triage', 'held', 'deferred', 'not-selected']),
  wave: z.object({ index: z.number().int().positive(), kind: z.enum(['parallel', 'serial_singleton']) }).nullable(),
  reason: z.string(),
  scope: z.array(
    z.object({
      path: z.string(),
      kind: z.enum(['file', 'dir', 'new-file', 'new-dir']),
      evidence: z.array(z.object({ source: z.enum(['title', 'body', 'label', 'config']), via: z.string(), text: z.string(), line: z.number().int().nullable() })),
    }),
  ),
  /** The leaves compared with other issues, after the granularity roll-up. */
  comparedAs: z.array(z.string()),
  unresolved: z.array(z.object({ text: z.string(), line: z.number().int().nullable(), reason: z.string() })),
  rejected: z.array(z.object({ text: z.string(), line: z.number().int().nullable(), reason: z.string() })),
  excluded: z.array(z.string()),
  dependsOn: z.array(z.number().int().positive()),
  serial: z.string().nullable(),
  conflicts: z.array(
    z.object({ with: z.number().int().positive(), kind: z.enum(['path', 'import', 'dependency', 'serial']), detail: z.string(), chain: z.array(z.string()).optional() }),
  ),
  /** For an issue in wave k: why each of waves 1..k-1 could not take it. */
  earlierWaves: z.array(z.object({ index: z.number().int().positive(), reason: z.string() })),
  /** Scope inference: the files its text points at, best first, with every piece of evidence (absent when off or none). */
  candidates: z.array(CandidateSchema).optional(),
  /** True when its fence came from inference (plan mode). */
  inferred: z.boolean().optional(),
});

export type IssueExplanation = z.infer<typeof IssueExplanationSchema>;

function involving(conflicts: readonly Conflict[], n: IssueNumber): IssueExplanation['conflicts'] {
  return conflicts
    .filter((c) => c.a === n || c.b === n)
    .map((c) => ({ with: c.a === n ? c.b : c.a, kind: c.kind, detail: c.detail, ...(c.chain ? { chain: c.chain } : {}) }));
}

/** Null when the issue is not in the backlog at all. */
export function explainIssue(analysis: PlanAnalysis, number: IssueNumber, backlog: readonly { number: number; title: string; url: string | null; state: string }[]): IssueExplanation | null {
  const issue = backlog.find((i) => i.number === number);
  if (!issue) return null;
  const { plan } = analysis;
  const scope = analysis.scopes.get(number);
  const bucket = analysis.buckets.get(number);
  const rankIndex = analysis.selected.findIndex((i) => i.number === number);
  const base = {
    number,
    title: issue.title,
    url: issue.url,
    rank: rankIndex >= 0 ? rankIndex + 1 : null,
    scope: (scope?.leaves ?? []).map((leaf) => ({
      path: leaf.path,
      kind: leaf.kind,
      evidence: leaf.evidence.map((e) => ({ source: e.source, via: e.via, text: e.text, line: e.line })),
    })),
    comparedAs: (analysis.leaves.get(number) ?? []).map(leafLabel),
    unresolved: (scope?.unresolved ?? []).map((u) => ({ text: u.text, line: u.line, reason: u.reason })),
    rejected: (scope?.rejected ?? []).map((r) => ({ text: r.text, line: r.line, reason: r.reason })),
    excluded: scope?.excluded ?? [],
    dependsOn: scope?.dependsOn ?? [],
    ...(analysis.candidates.has(number) ? { candidates: analysis.candidates.get(number)!, inferred: analysis.inferred.has(number) } : {}),
  };
  if (!bucket || !scope) {
    const reason =
      issue.state === 'closed'
        ? 'closed: only open issues are planned'
        : `not among the top ${plan.options.top} issues evaluated (raise --top to include it)`;
    return { ...base, bucket: 'not-selected', wave: null, reason, serial: null, conflicts: [], earlierWaves: [] };
  }
  const unit = analysis.units.find((u) => u.number === number);
  const conflicts = [
    ...involving(
      analysis.conflicts.filter((c) => c.kind !== 'serial'),
      number,
    ),
    ...involving(serialConflicts(analysis.units, (n) => n === number), number),
  ].sort((x, y) => x.with - y.with || x.kind.localeCompare(y.kind));

  const waveIndex = plan.waves.findIndex((w) => w.issues.some((i) => i.number === number));
  if (waveIndex >= 0) {
    const wave = plan.waves[waveIndex]!;
    const earlierWaves = plan.waves.slice(0, waveIndex).map((earlier) => {
      const members = earlier.issues.map((i) => i.number);
      const blocking = conflicts.filter((c) => members.includes(c.with) && c.kind !== 'dependency');
      const dependency = scope.dependsOn.find((d) => {
        const at = plan.waves.findIndex((w) => w.issues.some((i) => i.number === d));
        return at >= earlier.index - 1;
      });
      let reason: string;
      if (dependency !== undefined) reason = `#${number} depends on #${dependency}, which is in wave ${plan.waves.findIndex((w) => w.issues.some((i) => i.number === dependency)) + 1}`;
      else if (unit?.serial) reason = `#${number} runs alone (serial: ${unit.serial.reason}) and wave ${earlier.index} already holds #${members.join(', #')}`;
      else if (earlier.kind === 'serial_singleton') reason = `wave ${earlier.index} is reserved for the serial #${members[0]}`;
      else if (blocking.length > 0) reason = blocking.map((c) => `conflicts with #${c.with} (${c.kind}: ${c.detail})`).join('; ');
      else if (earlier.issues.length >= plan.options.waveSize) reason = `wave ${earlier.index} is full (--wave-size ${plan.options.waveSize}) with higher-ranked issues`;
      else reason = plan.summary.optimal
        ? `it would fit, but higher-ranked issues placed first leave no way to keep ${plan.summary.waves} wave(s) with it there`
        : 'it would fit; the heuristic placed it later (the wave count is not proven minimal)';
      return { index: earlier.index, reason };
    });
    return {
      ...base,
      bucket: 'wave',
      wave: { index: wave.index, kind: wave.kind },
      reason: waveIndex === 0 ? `dispatchable: in the first wave` : `dispatchable: in wave ${wave.index}, not earlier (see below)`,
      serial: unit?.serial?.reason ?? null,
      conflicts,
      earlierWaves,
    };
  }
  const find = <T extends { number: number }>(list: T[]) => list.find((x) => x.number === number);
  const sub = find(plan.subdivide);
  const tri = find(plan.triage);
  const held = find(plan.held);
  const deferred = find(plan.deferred);
  const [kind, reason]: [IssueExplanation['bucket'], string] = sub
    ? ['subdivide', `${sub.reason}; split it into about ${sub.childBudget} child issues`]
    : tri
      ? ['triage', tri.reason]
      : held
        ? ['held', held.reason ?? heldReason(held.lease, scope.leaves.map((leaf) => leaf.path))]
        : ['deferred', deferred?.reason ?? 'deferred'];
  return { ...base, bucket: kind, wave: null, reason, serial: unit?.serial?.reason ?? null, conflicts, earlierWaves: [] };
}

