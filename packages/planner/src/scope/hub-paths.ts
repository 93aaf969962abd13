/**
 * The hub rule: a leaf that is, or contains, a hub — a file more than a share of the repository
 * depends on — makes its issue serial, since an agent changing it could break the work of every
 * other agent of the wave.
 *
 * NOTE: off by default. Replayed on a large monorepo whose core is one import cycle, the
 * transitive rule made every file of the cycle a hub and ran 119 of 143 issues alone (126 waves
 * where 52 sufficed) without preventing one conflict that direct-import contention did not
 * already catch. It stays available as an opt-in, by direct fan-in or transitively.
 */
import { DEFAULT_HUB_MIN_DEPENDENTS, DEFAULT_HUB_THRESHOLD, describeHub, findHubs, type Hub, type HubMeasure } from '../graph/dependents.js';
import type { PlanOptions } from '../schema/options-schema.js';
import type { RepoGraph } from '../types.js';
import type { LeafKind } from './extract-scope.js';
import type { RepoTree } from './repo-tree.js';
import type { SerialMatch } from './serial-paths.js';

export type HubOptions = Partial<Pick<PlanOptions, 'hubs' | 'hubThreshold' | 'hubMinDependents'>>;

export interface HubRule {
  measure: HubMeasure;
  threshold: number;
  minDependents: number;
}

/**
 * The hub rule the options ask for, or null when hubs make nothing serial. Without `hubs`, a
 * `hubThreshold` below 1 or a `hubMinDependents` means the transitive rule those keys tuned
 * before hubs became opt-in, so configs written for it keep their meaning.
 */
export function hubRuleOf(options: HubOptions): HubRule | null {
  const threshold = options.hubThreshold ?? DEFAULT_HUB_THRESHOLD;
  const minDependents = options.hubMinDependents ?? DEFAULT_HUB_MIN_DEPENDENTS;
  const tuned = (options.hubThreshold !== undefined && options.hubThreshold < 1) || options.hubMinDependents !== undefined;
  const mode = options.hubs ?? (tuned ? 'transitive' : 'off');
  if (mode === 'off' || threshold >= 1) return null;
  return { measure: mode, threshold, minDependents };
}

const hubIndex = new WeakMap<RepoGraph, Map<string, Map<string, Hub>>>();

function hubsOf(graph: RepoGraph, rule: HubRule): Map<string, Hub> {
  let byRule = hubIndex.get(graph);
  if (!byRule) hubIndex.set(graph, (byRule = new Map()));
  const key = `${rule.measure}:${rule.threshold}:${rule.minDependents}`;
  let hubs = byRule.get(key);
  if (!hubs) byRule.set(key, (hubs = new Map(findHubs(graph, rule.threshold, rule.minDependents, rule.measure).map((h) => [h.file, h]))));
  return hubs;
}

/** The hub a leaf touches under the options' rule (the most depended on, for a directory), or null. */
export function matchHub(leaf: { path: string; kind: LeafKind }, tree: RepoTree, graph: RepoGraph, options: HubOptions): SerialMatch | null {
  const rule = hubRuleOf(options);
  if (rule === null || graph.order === 0) return null;
  const hubs = hubsOf(graph, rule);
  if (hubs.size === 0) return null;
  const candidates = leaf.kind === 'dir' ? tree.filesUnder(leaf.path) : [leaf.path];
  let best: Hub | null = null;
  for (const file of candidates) {
    const hub = hubs.get(file);
    if (hub && (!best || hub.dependents > best.dependents)) best = hub;
  }
  if (!best) return null;
  return { path: best.file, rule: 'hub', builtin: false, reason: describeHub(best, graph.order, rule.measure) };
}
