/**
 * What the plan does with an issue's candidates: the fence an agent gets when the scope was
 * inferred (plan mode), and the words that tell a person why (the triage reason, the prompt).
 *
 * The fence is the strong candidates — those close to the best — as files when the best is sure
 * (`SURE`), widened to their directories when it is only middling: an inference that is right
 * about the area but not the file still fences the agent in the right place.
 */
import { containsPath, parentDir } from '../paths/repo-paths.js';
import type { InferenceIndex } from './inference-index.js';
import { isControlFile } from '../scope/control-files.js';
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
 * Most candidates a fence is made of. Five, down to 60 % of the best's confidence and 85 % of the
 * threshold: replayed on commit subjects (zod, trpc, astro, payload at 0.7), violations fell from
 * 4.5–8 % of the dispatched issues with three to 1.1–3.8 %, for more waves.
 */
const MAX_FENCE = 5;

export interface InferredLeaf {
  path: RepoPath;
  kind: 'file' | 'dir';
  evidence: ScopeEvidence;
}

/** The candidates strong enough to fence: the best, and those with 60 % of its confidence and 85 % of the threshold. */
export function strongCandidates(candidates: readonly Candidate[], threshold: number): Candidate[] {
  const best = candidates[0]?.confidence ?? 0;
  if (best < threshold) return [];
  const floor = Math.max(threshold * 0.85, best * 0.6);
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
    text: `${candidate.path} (${confidencePercent(candidate.confidence)}%: ${describeEvidence(candidate.evidence.slice(0, 2))})`,
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

/** A confidence as a whole percent, rounded down: 0.696 is 69 %, not the 70 % a 0.7 threshold asks for. */
export function confidencePercent(confidence: number): number {
  return Math.floor(Math.round(confidence * 1000) / 10);
}

/** The triage reason's tail: `likely a.ts (title scope \`x\`, …), b.ts`. */
export function likelyText(candidates: readonly Candidate[]): string {
  // A best guess this unsure (one common word of the body) is no lead worth naming: the entry's candidates still list it.
  if (candidates.length === 0 || candidates[0]!.confidence < MENTION) return '';
  const [best, ...rest] = candidates;
  const others = rest.slice(0, 2).map((c) => c.path);
  // A best candidate this unsure (a common word matched) is named as the guess it is.
  const word = best!.confidence >= LIKELY ? 'likely' : 'perhaps';
  return `${word} ${best!.path} (${confidencePercent(best!.confidence)}%: ${describeEvidence(best!.evidence.slice(0, 2))})${others.length > 0 ? `, or ${others.join(', ')}` : ''}`;
}

/** Below this confidence the triage reason says "perhaps", not "likely". */
export const LIKELY = 0.5;
/** Below this one it names no file at all. */
export const MENTION = 0.1;

/** Below the threshold, an area fence needs the best candidate at this share of it at least. */
export const AREA_FLOOR = 0.6;
/** …and this many of the five likeliest files in the best one's package. */
const AREA_MIN = 4;
/** How many of the likeliest files an area is judged by. */
const AREA_READ = 5;

/**
 * The fence of an issue whose best candidate is short of the threshold but whose likeliest files
 * lie in one workspace package (at least four of the five, the best among them, the best at
 * `AREA_FLOOR` of the threshold at least): that package, as a maintainer who knows the area but
 * not the file would send it. Wide on purpose — an issue fenced to a package runs beside no other
 * issue in it. Empty when the files spread over packages, or the area is the repository's root
 * package. Replayed on commit subjects (bench/RESULTS.md), the package held a true file of most
 * such issues (zod 61 of 62, nocobase 26 of 30, AFFiNE 44 of 58).
 */
export function areaFence(candidates: readonly Candidate[], threshold: number, packageOf: (path: RepoPath) => RepoPath | null): InferredLeaf[] {
  const best = candidates[0];
  if (!best || best.confidence >= threshold || best.confidence < threshold * AREA_FLOOR) return [];
  const area = packageOf(best.path);
  if (area === null || area === '') return [];
  const top = candidates.slice(0, AREA_READ);
  const inside = top.filter((c) => containsPath(area, c.path)).length;
  if (top.length < 3 || inside < Math.min(AREA_MIN, top.length)) return [];
  const evidence = scopeEvidenceOf(best);
  return [{ path: area, kind: 'dir', evidence: { ...evidence, via: 'inferred-area', text: `${area} (package of ${inside} of the ${top.length} likeliest files; best ${evidence.text})` } }];
}

/** A companion is a file at least this share of the past commits that changed the fence also changed… */
const COMPANION_SHARE = 0.3;
/** …and at least this many of them. */
const COMPANION_MIN = 3;
/** Most companions a fence gets. */
const MAX_COMPANIONS = 3;
/** Past commits of more files than this are a sweep (a rename, a formatting pass): no evidence of what goes together. */
const SWEEP = 20;
/** How many of each file's newest past commits are read. */
const RECENT = 100;

/**
 * The files that past commits changing an inferred fence also changed, in a good share of them:
 * what a title never names but its change goes with — a rule and the shared suppression list it
 * must update, a module and its test, a component and the barrel that exports it. Added to the
 * fence, they are leased with it: two issues that would each touch one are not put side by side.
 * Replayed at the title grade on typescript-eslint, where rule fixes also touch
 * `eslint-suppressions.json` and `util/index.ts`, see bench/RESULTS.md. Pure; deterministic.
 */
export function fenceCompanions(index: Pick<InferenceIndex, 'files' | 'fileId' | 'filesIn' | 'commitsOf' | 'commitFiles'>, leaves: readonly InferredLeaf[]): InferredLeaf[] {
  const inside = (path: RepoPath) => leaves.some((leaf) => containsPath(leaf.path, path));
  const own = new Set<number>();
  for (const leaf of leaves) {
    if (leaf.kind === 'file') {
      const id = index.fileId.get(leaf.path);
      if (id !== undefined) own.add(id);
    } else for (const id of index.filesIn.get(leaf.path) ?? []) own.add(id);
  }
  const commits = new Set<number>();
  for (const id of own) for (const c of index.commitsOf[id]!.slice(0, RECENT)) if (index.commitFiles[c]!.length <= SWEEP) commits.add(c);
  if (commits.size < COMPANION_MIN) return [];
  const together = new Map<number, number>();
  for (const c of commits) for (const other of index.commitFiles[c]!) if (!own.has(other)) together.set(other, (together.get(other) ?? 0) + 1);
  return [...together]
    // Never a control file (a manifest, a tool's config, an agent's settings, CI): a guess must not
    // put what tools run or obey in a fence, where a change to it would count as planned.
    .filter(([id, count]) => count >= COMPANION_MIN && count / commits.size >= COMPANION_SHARE && !inside(index.files[id]!) && !isControlFile(index.files[id]!))
    .sort((a, b) => b[1] - a[1] || (index.files[a[0]]! < index.files[b[0]]! ? -1 : 1))
    .slice(0, MAX_COMPANIONS)
    .map(([id, count]) => {
      const path = index.files[id]!;
      return { path, kind: 'file' as const, evidence: { source: 'title' as const, via: 'inferred-cochange', text: `${path} (changed with the fence in ${count} of its ${commits.size} past commits)`, line: 0 } };
    });
}
