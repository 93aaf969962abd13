/**
 * Queries over the import graph: what files depend on or are depended on by a set of files
 * within a number of hops, and the graph rolled up to directories or packages. Pure.
 */
import { DirectedGraph } from 'graphology';
import type { RepoGraph, RepoPath } from '../types.js';

function walk(graph: RepoGraph, start: Iterable<RepoPath>, depth: number, next: (file: RepoPath, visit: (n: RepoPath) => void) => void): Map<RepoPath, number> {
  const found = new Map<RepoPath, number>();
  let frontier = [...start].filter((f) => graph.hasNode(f));
  const seen = new Set(frontier);
  for (let d = 1; d <= depth && frontier.length > 0; d++) {
    const following: RepoPath[] = [];
    for (const file of frontier) {
      next(file, (n) => {
        if (!seen.has(n)) {
          seen.add(n);
          found.set(n, d);
          following.push(n);
        }
      });
    }
    frontier = following;
  }
  return found;
}

/** Files the given files import, directly (depth 1) or within `depth` hops, with their distance. */
export function dependenciesOf(graph: RepoGraph, files: Iterable<RepoPath>, depth = Infinity): Map<RepoPath, number> {
  return walk(graph, files, depth, (file, visit) => graph.forEachOutNeighbor(file, visit));
}

/** Files that import the given files, directly (depth 1) or within `depth` hops, with their distance. */
export function dependentsOf(graph: RepoGraph, files: Iterable<RepoPath>, depth = Infinity): Map<RepoPath, number> {
  return walk(graph, files, depth, (file, visit) => graph.forEachInNeighbor(file, visit));
}

/**
 * Files reached from `start` in 1..`depth` import hops — following imports (`out`) or importers
 * (`in`), neighbours in path order — each with the file it was first reached from, in the order
 * they were reached (nearest first). `chainTo` reads the path back.
 */
export function reachImports(graph: RepoGraph, start: Iterable<RepoPath>, depth: number, direction: 'out' | 'in'): Map<RepoPath, RepoPath> {
  const from = new Map<RepoPath, RepoPath>();
  let frontier = [...new Set(start)].filter((f) => graph.hasNode(f)).sort();
  const seen = new Set(frontier);
  for (let d = 1; d <= depth && frontier.length > 0; d++) {
    const following: RepoPath[] = [];
    for (const file of frontier) {
      for (const n of (direction === 'out' ? graph.outNeighbors(file) : graph.inNeighbors(file)).sort()) {
        if (seen.has(n)) continue;
        seen.add(n);
        from.set(n, file);
        following.push(n);
      }
    }
    frontier = following;
  }
  return from;
}

/** The chain of files from a start file of `reachImports` to `file`, both ends included. */
export function chainTo(reached: ReadonlyMap<RepoPath, RepoPath>, file: RepoPath): RepoPath[] {
  const chain = [file];
  for (let p = reached.get(file); p !== undefined; p = reached.get(p)) chain.unshift(p);
  return chain;
}

/** An import chain for people: `a imports b`, or `a → b → c`. */
export function describeChain(chain: readonly RepoPath[]): string {
  return chain.length === 2 ? `${chain[0]} imports ${chain[1]}` : chain.join(' → ');
}

/** Files that import this one directly. */
export function fanIn(graph: RepoGraph, file: RepoPath): number {
  return graph.hasNode(file) ? graph.inDegree(file) : 0;
}

/**
 * The graph rolled up to directories or workspace packages: one node per group (with the
 * number of its files), one edge per importing pair of groups (with the number of file imports).
 */
export function rollUpGraph(graph: RepoGraph, by: 'dir' | 'package'): DirectedGraph<{ files: number }, { imports: number }> {
  const rolled = new DirectedGraph<{ files: number }, { imports: number }>();
  const groupOf = (file: RepoPath): string => {
    const attrs = graph.getNodeAttributes(file);
    return by === 'dir' ? attrs.dir || '.' : (attrs.package ?? '(no package)');
  };
  graph.forEachNode((file) => {
    const group = groupOf(file);
    rolled.mergeNode(group, { files: (rolled.hasNode(group) ? rolled.getNodeAttribute(group, 'files') : 0) + 1 });
  });
  graph.forEachEdge((_e, _a, from, to) => {
    const a = groupOf(from);
    const b = groupOf(to);
    if (a === b) return;
    rolled.updateEdge(a, b, (attrs) => ({ imports: (attrs.imports ?? 0) + 1 }));
  });
  return rolled;
}
