/**
 * The scope stage with inference: each selected issue's scope as the issue states it
 * (`extractScope`), and — unless inference is off — its candidates. In plan mode, an issue that
 * names nothing and whose best candidate passes the threshold gets an inferred fence, and an
 * issue that names paths gets its strong frame, identifier and message candidates added.
 */
import type { PlanOptions } from '../schema/options-schema.js';
import type { Candidate } from '../schema/plan-schema.js';
import { extractScope, type IssueScope, type ScopeOptions } from '../scope/extract-scope.js';
import type { RepoTree } from '../scope/repo-tree.js';
import { containsPath } from '../paths/repo-paths.js';
import { isControlFile } from '../scope/control-files.js';
import type { BacklogIssue, IssueNumber, RepoIndex } from '../types.js';
import { inferCandidates, type InferOptions } from './infer-candidates.js';
import { inferenceIndexOf, type InferenceIndex } from './inference-index.js';
import { readIssueSignals, type PathSignal } from './issue-signals.js';
import { areaFence, fenceCompanions, inferredFence, scopeEvidenceOf, strongCandidates, type InferredLeaf } from './inferred-fence.js';

export interface InferredScopes {
  scopes: Map<IssueNumber, IssueScope>;
  candidates: Map<IssueNumber, Candidate[]>;
  inferred: Set<IssueNumber>;
}

/** Candidates found, per index and issue: a plan's verification asks for the same ones again. */
const found = new WeakMap<InferenceIndex, WeakMap<BacklogIssue, { key: string; candidates: Candidate[] }>>();

function candidatesOf(issue: BacklogIssue, index: InferenceIndex, tree: RepoTree, options: InferOptions): Candidate[] {
  const key = `${options.strongOnly === true}\0${JSON.stringify(options.lanes ?? null)}`;
  let byIssue = found.get(index);
  if (!byIssue) found.set(index, (byIssue = new WeakMap()));
  const hit = byIssue.get(issue);
  if (hit?.key === key) return hit.candidates;
  const candidates = inferCandidates(issue, index, tree, options);
  byIssue.set(issue, { key, candidates });
  return candidates;
}

export function inferScopes(
  selected: readonly BacklogIssue[],
  repo: RepoIndex,
  tree: RepoTree,
  options: Pick<PlanOptions, 'inference' | 'inferenceThreshold' | 'lanes'>,
  scopeOptions: ScopeOptions,
): InferredScopes {
  const scopes = new Map<IssueNumber, IssueScope>();
  const candidates = new Map<IssueNumber, Candidate[]>();
  const inferred = new Set<IssueNumber>();
  let index: InferenceIndex | null = null;
  // The workspace package a file lies in (the deepest), for area fences.
  const packageDirs = [...new Set((repo.packages ?? []).map((p) => p.dir))].sort((a, b) => b.length - a.length);
  const packageOf = (path: string) => packageDirs.find((dir) => dir !== '' && containsPath(dir, path)) ?? null;
  for (const issue of selected) {
    const stated = extractScope(issue, tree, scopeOptions);
    scopes.set(issue.number, stated);
    if (options.inference === 'off') continue;
    const named = stated.leaves.length > 0;
    // An issue that names its files and holds no other frame or path, name, package or message
    // needs no index at all (nor the symbols it reads: a warm plan of such issues never reads them).
    if (named) {
      const signals = readIssueSignals(issue.title, issue.body);
      const covered = (p: PathSignal) => p.nodeModule === null && stated.leaves.some((leaf) => containsPath(leaf.path, p.segments.join('/')));
      // The words of a path it names (`packages/api/src/routes/checkout.ts` in a code span) name nothing more.
      const words = new Set(signals.paths.filter(covered).flatMap((p) => p.segments.flatMap((segment) => [segment, ...segment.split(/[^\w$]+/)])));
      const names = signals.names.filter((n) => !words.has(n.text));
      if (signals.paths.every(covered) && names.length === 0 && signals.packages.length === 0 && signals.messages.length === 0) continue;
    }
    index ??= inferenceIndexOf(repo);
    const found = candidatesOf(issue, index, tree, { lanes: options.lanes, strongOnly: named }).filter(
      (c) => !stated.leaves.some((leaf) => containsPath(leaf.path, c.path)) && !stated.excluded.some((x) => containsPath(x, c.path)),
    );
    if (found.length === 0) continue;
    candidates.set(issue.number, found);
    if (options.inference !== 'plan') continue;
    // A guess never fences a control file (a manifest, a tool's config, CI, an agent's settings):
    // what tools run or obey is changed on a person's word, not on an inference — such an issue
    // stays in triage unless other candidates carry it. Candidates still show them.
    const fenceable = found.filter((c) => !isControlFile(c.path));
    let extra: InferredLeaf[];
    if (!named) {
      extra = inferredFence(fenceable, options.inferenceThreshold);
      if (extra.length > 0) extra = [...extra, ...fenceCompanions(index, extra)];
      else extra = areaFence(fenceable, options.inferenceThreshold, packageOf);
    }
    else extra = strongCandidates(fenceable, options.inferenceThreshold).map((c) => ({ path: c.path, kind: 'file', evidence: scopeEvidenceOf(c) }));
    if (extra.length === 0) continue;
    scopes.set(issue.number, extractScope(issue, tree, scopeOptions, extra));
    if (!named) inferred.add(issue.number);
  }
  return { scopes, candidates, inferred };
}
