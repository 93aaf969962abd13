/**
 * What the plan does with an issue's candidates: the fence an agent gets when the scope was
 * inferred (plan mode), and the words that tell a person why (the triage reason, the prompt).
 *
 * The fence is the strong candidates — those close to the best — as files when the best is sure
 * (`SURE`), widened to their directories when it is only middling: an inference that is right
 * about the area but not the file still fences the agent in the right place.
 */
import { parentDir } from '../paths/repo-paths.js';
import type { Candidate, Evidence } from '../schema/plan-schema.js';
import type { ScopeEvidence } from '../scope/extract-scope.js';
import type { RepoPath } from '../types.js';

/**
 * At or above this confidence the fence is the files themselves. Why 0.9: replayed on commit
 * subjects (zod, trpc, astro, payload, threshold 0.7), folders below 0.9 kept a true file inside
 * 50–91 % of the inferred fences, against 48–78 % with the cut at 0.8.
 */
export const SURE = 0.9;
/**
 * Most candidates a fence is made of. Five, with a floor at 85 % of the threshold: replayed on
 * commit subjects (zod, astro, payload at 0.7), violations fell from 4.5–8 % of the dispatched
 * issues with three to 0.9–2.9 %, for more waves.
 */
const MAX_FENCE = 5;

export interface InferredLeaf {
  path: RepoPath;
  kind: 'file' | 'dir';
  evidence: ScopeEvidence;
}

/** The candidates strong enough to fence: the best, and those within reach of it and the threshold. */
export function strongCandidates(candidates: readonly Candidate[], threshold: number): Candidate[] {
  const best = candidates[0]?.confidence ?? 0;
  if (best < threshold) return [];
  const floor = Math.max(threshold * 0.85, best * 0.75);
  return candidates.filter((c) => c.confidence >= floor).slice(0, MAX_FENCE);
}

/** The inferred fence of an issue that named no path, as scope leaves (empty when the best is under the threshold). */
export function inferredFence(candidates: readonly Candidate[], threshold: number): InferredLeaf[] {
  const strong = strongCandidates(candidates, threshold);
  if (strong.length === 0) return [];
  const sure = strong[0]!.confidence >= SURE;
  const out = new Map<RepoPath, InferredLeaf>();
  for (const candidate of strong) {
    const path = sure || candidate.path.indexOf('/') < 0 ? candidate.path : parentDir(candidate.path);
    if (!out.has(path)) out.set(path, { path, kind: path === candidate.path ? 'file' : 'dir', evidence: scopeEvidenceOf(candidate) });
  }
  return [...out.values()];
}

/** A candidate as scope evidence (what `waves explain` shows for a leaf). */
export function scopeEvidenceOf(candidate: Candidate): ScopeEvidence {
  const first = candidate.evidence[0];
  return {
    source: first?.where.field ?? 'title',
    via: `inferred-${first?.kind ?? 'words'}`,
    text: `${candidate.path} (${Math.round(candidate.confidence * 100)}%: ${describeEvidence(candidate.evidence.slice(0, 2))})`,
    line: first?.where.field === 'body' ? (first.where.line ?? null) : first ? 0 : null,
  };
}

/** One piece of evidence in words: `title scope \`theme\``, `declares \`applyTheme\``, `frame src/x.ts:12`. */
export function describeOne(e: Evidence): string {
  switch (e.kind) {
    case 'frame':
      return `stack frame ${e.text}`;
    case 'path':
      return `path ${e.text}`;
    case 'identifier':
      return `\`${e.text}\` declared there`;
    case 'filename':
      return `\`${e.text}\` names ${e.matched}`;
    case 'message':
      return `message ${e.matched}`;
    case 'scope':
      return `title scope \`${e.text}\``;
    case 'lane':
      return `lane keyword \`${e.text}\``;
    case 'neighbour':
      return e.matched;
    case 'words':
      return e.matched.startsWith('past commit: ') ? `like ${e.matched.replace('past commit: ', 'past commit "')}"` : `words ${e.text}`;
  }
}

export function describeEvidence(evidence: readonly Evidence[]): string {
  return evidence.map(describeOne).join(', ');
}

/** The triage reason's tail: `likely a.ts (title scope \`x\`, …), b.ts`. */
export function likelyText(candidates: readonly Candidate[]): string {
  if (candidates.length === 0) return '';
  const [best, ...rest] = candidates;
  const others = rest.slice(0, 2).map((c) => c.path);
  return `likely ${best!.path} (${Math.round(best!.confidence * 100)}%: ${describeEvidence(best!.evidence.slice(0, 2))})${others.length > 0 ? `, or ${others.join(', ')}` : ''}`;
}
