import { describeHub, findHubs, type Hub } from '../graph/dependents.js';
import type { RepoGraph } from '../types.js';
import type { LeafKind } from './extract-scope.js';
import type { RepoTree } from './repo-tree.js';
import type { SerialMatch } from './serial-paths.js';

const hubIndex = new WeakMap<RepoGraph, Map<string, Map<string, Hub>>>();

function hubsOf(graph: RepoGraph, threshold: number, minDependents: number): Map<string, Hub> {
  let byRule = hubIndex.get(graph);
  if (!byRule) hubIndex.set(graph, (byRule = new Map()));
  const key = `${threshold}:${minDependents}`;
  let hubs = byRule.get(key);
  if (!hubs) byRule.set(key, (hubs = new Map(findHubs(graph, threshold, minDependents).map((h) => [h.file, h]))));
  return hubs;
}

/**
 * A leaf that is, or contains, a hub — a file that more than `threshold` of the repository's
 * files depend on, directly or not — makes its issue serial: an agent changing it can break
 * the work of every other agent of the wave.
 */
export function matchHub(
  leaf: { path: string; kind: LeafKind },
  tree: RepoTree,
  graph: RepoGraph,
  rule: { hubThreshold: number; hubMinDependents: number },
): SerialMatch | null {
  if (rule.hubThreshold >= 1 || graph.order === 0) return null;
  const hubs = hubsOf(graph, rule.hubThreshold, rule.hubMinDependents);
  if (hubs.size === 0) return null;
  const candidates = leaf.kind === 'dir' ? tree.filesUnder(leaf.path) : [leaf.path];
  let best: Hub | null = null;
  for (const file of candidates) {
    const hub = hubs.get(file);
    if (hub && (!best || hub.dependents > best.dependents)) best = hub;
  }
  if (!best) return null;
  return { path: best.file, rule: 'hub', builtin: false, reason: describeHub(best, graph.order) };
}
