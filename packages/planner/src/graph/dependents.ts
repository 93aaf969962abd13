/**
 * How many files depend on each file, directly (fan-in) and transitively, and which files are
 * hubs (depended on by more than a share of the repository, by either measure) or barrels (index
 * files that mostly re-export). Pure queries over the import graph.
 *
 * Algorithm for the transitive counts of every file at once: Tarjan's strongly connected
 * components (iterative: import chains in large repositories are deeper than the call stack
 * allows, which rules out recursive implementations such as graphology-components'), then a
 * dynamic programme over the condensation in topological order, where each component's set of
 * transitive importers is the union of its importers' sets, as bitsets over the files. The
 * universe of files is processed in chunks so that memory stays at components × chunk bits.
 * Exact, O(E · N / 32) word operations.
 */
import { baseName } from '../paths/repo-paths.js';
import type { RepoGraph, RepoPath } from '../types.js';

interface Indexed {
  nodes: RepoPath[];
  /** CSR adjacency of out-edges (importer → imported). */
  offsets: Int32Array;
  targets: Int32Array;
}

function indexGraph(graph: RepoGraph): Indexed {
  const nodes = graph.nodes();
  const index = new Map(nodes.map((n, i) => [n, i]));
  const offsets = new Int32Array(nodes.length + 1);
  const targets = new Int32Array(graph.size);
  let k = 0;
  nodes.forEach((node, i) => {
    offsets[i] = k;
    graph.forEachOutNeighbor(node, (target) => {
      targets[k++] = index.get(target)!;
    });
  });
  offsets[nodes.length] = k;
  return { nodes, offsets, targets };
}

/**
 * Strongly connected components, iteratively. Returns the component of each node; components
 * are numbered in the order Tarjan's algorithm completes them, which is a reverse topological
 * order of the condensation (a component is numbered after every component it reaches).
 */
export function stronglyConnected(n: number, offsets: Int32Array, targets: Int32Array): { component: Int32Array; count: number } {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const component = new Int32Array(n).fill(-1);
  const stack = new Int32Array(n);
  let sp = 0;
  const callNode = new Int32Array(n);
  const callEdge = new Int32Array(n);
  let counter = 0;
  let count = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    let depth = 0;
    callNode[0] = root;
    callEdge[0] = offsets[root]!;
    index[root] = low[root] = counter++;
    stack[sp++] = root;
    onStack[root] = 1;
    while (depth >= 0) {
      const v = callNode[depth]!;
      const e = callEdge[depth]!;
      if (e < offsets[v + 1]!) {
        callEdge[depth] = e + 1;
        const w = targets[e]!;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack[sp++] = w;
          onStack[w] = 1;
          depth++;
          callNode[depth] = w;
          callEdge[depth] = offsets[w]!;
        } else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack[--sp]!;
          onStack[w] = 0;
          component[w] = count;
        } while (w !== v);
        count++;
      }
      depth--;
      if (depth >= 0) {
        const parent = callNode[depth]!;
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
    }
  }
  return { component, count };
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

const memo = new WeakMap<RepoGraph, Map<RepoPath, number>>();

/** The number of other files that import each file, directly or through other files. */
export function dependentCounts(graph: RepoGraph, chunkBits = 8192): Map<RepoPath, number> {
  const cached = memo.get(graph);
  if (cached) return cached;
  const { nodes, offsets, targets } = indexGraph(graph);
  const n = nodes.length;
  const { component, count } = stronglyConnected(n, offsets, targets);
  // Condensation edges, reversed: for each component, the components that import it.
  const members: number[][] = Array.from({ length: count }, () => []);
  for (let v = 0; v < n; v++) members[component[v]!]!.push(v);
  const importers: Set<number>[] = Array.from({ length: count }, () => new Set());
  for (let v = 0; v < n; v++) {
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
      const cv = component[v]!;
      const cw = component[targets[e]!]!;
      if (cv !== cw) importers[cw]!.add(cv);
    }
  }
  const totals = new Int32Array(count);
  const words = Math.ceil(Math.min(chunkBits, Math.max(1, n)) / 32);
  // Tarjan numbers a component after everything it reaches, so importers have higher numbers:
  // going from the highest number down visits every importer before what it imports.
  for (let lo = 0; lo < n; lo += words * 32) {
    const hi = Math.min(n, lo + words * 32);
    const bits = new Uint32Array(count * words);
    for (let c = count - 1; c >= 0; c--) {
      const row = c * words;
      for (const p of importers[c]!) {
        const prow = p * words;
        for (let w = 0; w < words; w++) bits[row + w]! |= bits[prow + w]!;
        for (const file of members[p]!) {
          if (file >= lo && file < hi) bits[row + ((file - lo) >>> 5)]! |= 1 << ((file - lo) & 31);
        }
      }
      let total = 0;
      for (let w = 0; w < words; w++) total += popcount32(bits[row + w]!);
      totals[c] = totals[c]! + total;
    }
  }
  const result = new Map<RepoPath, number>();
  for (let v = 0; v < n; v++) {
    const c = component[v]!;
    // Files of its own cycle depend on it too.
    result.set(nodes[v]!, totals[c]! + members[c]!.length - 1);
  }
  memo.set(graph, result);
  return result;
}

export interface Hub {
  file: RepoPath;
  /** Files that depend on it, as the measure counts them (directly or not, for `transitive`). */
  dependents: number;
  /** Files that import it directly. */
  fanIn: number;
  barrel: boolean;
}

/** An index file that mostly re-exports: `export * from`, `export { x } from`. */
export function isBarrel(graph: RepoGraph, file: RepoPath): boolean {
  if (!graph.hasNode(file) || !/^index\.[mc]?[jt]sx?$/.test(baseName(file))) return false;
  let reexports = 0;
  let total = 0;
  graph.forEachOutEdge(file, (_edge, attrs) => {
    total++;
    if (attrs.kinds.includes('reexport')) reexports++;
  });
  return reexports >= 2 && reexports * 2 >= total;
}

/**
 * How a hub's dependents are counted: every file that imports it directly or through other files
 * (`transitive`), or only the files that import it directly (`fan-in`).
 *
 * NOTE: in a repository whose core is one import cycle, every file of the cycle has the whole
 * cycle and everything above it as transitive dependents, so the transitive measure makes all of
 * them hubs; direct fan-in tells the file everyone imports from the file that merely sits in the
 * cycle.
 */
export type HubMeasure = 'transitive' | 'fan-in';

/** A hub has more dependents than this share of the repository's files… */
export const DEFAULT_HUB_THRESHOLD = 0.25;
/** …and more than this many, so that in a small repository not every shared file is one. */
export const DEFAULT_HUB_MIN_DEPENDENTS = 20;

/**
 * Files whose dependents (by `measure`) exceed `threshold` × the number of files, and
 * `minDependents`; most depended on first (ties: most direct importers first, then by path).
 */
export function findHubs(graph: RepoGraph, threshold: number, minDependents = 0, measure: HubMeasure = 'transitive'): Hub[] {
  const limit = Math.max(threshold * graph.order, minDependents);
  const hubs: Hub[] = [];
  if (measure === 'fan-in') {
    graph.forEachNode((file) => {
      const fanIn = graph.inDegree(file);
      if (fanIn > limit) hubs.push({ file, dependents: fanIn, fanIn, barrel: isBarrel(graph, file) });
    });
  } else {
    for (const [file, dependents] of dependentCounts(graph)) {
      if (dependents > limit) hubs.push({ file, dependents, fanIn: graph.inDegree(file), barrel: isBarrel(graph, file) });
    }
  }
  return hubs.sort((a, b) => b.dependents - a.dependents || b.fanIn - a.fanIn || (a.file < b.file ? -1 : 1));
}

/**
 * A readable statement of a hub's reach: "packages/core/src/types.ts: 1,204 of 3,310 files depend
 * on it" (transitive), "…: 412 of 3,310 files import it directly" (fan-in).
 */
export function describeHub(hub: Hub, total: number, measure: HubMeasure = 'transitive'): string {
  const format = (x: number) => x.toLocaleString('en-US');
  const reach = measure === 'fan-in' ? 'import it directly' : 'depend on it';
  return `${hub.file}: ${format(hub.dependents)} of ${format(total)} files ${reach}${hub.barrel ? ' (a barrel re-exporting its folder)' : ''}`;
}
