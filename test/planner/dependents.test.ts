import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dependentCounts, findHubs, isBarrel, planWaves, summarizeGraph, type RepoGraph } from '@waves/planner';
import { issue, NOW } from '../helpers/issues.js';
import { makeRepo } from '../helpers/repo.js';

const graphArb = fc.integer({ min: 1, max: 60 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: n * 3 }),
  }),
);

function graphOf(n: number, edges: [number, number][]): RepoGraph {
  const files = Array.from({ length: n }, (_, i) => `src/f${i}.ts`);
  return makeRepo({ files, imports: edges.filter(([a, b]) => a !== b).map(([a, b]) => [files[a]!, files[b]!] as const) }).graph;
}

/** Brute force: a reverse breadth-first search from each file. */
function bruteCounts(graph: RepoGraph): Map<string, number> {
  const out = new Map<string, number>();
  for (const file of graph.nodes()) {
    const seen = new Set<string>([file]);
    const queue = [file];
    while (queue.length > 0) {
      for (const importer of graph.inNeighbors(queue.shift()!)) {
        if (!seen.has(importer)) {
          seen.add(importer);
          queue.push(importer);
        }
      }
    }
    out.set(file, seen.size - 1);
  }
  return out;
}

describe('transitive dependents', () => {
  it('always equal a breadth-first search from each file, cycles and chunking included', () => {
    fc.assert(
      fc.property(graphArb, fc.constantFrom(32, 64, 8192), ({ n, edges }, chunkBits) => {
        const graph = graphOf(n, edges);
        expect(new Map([...dependentCounts(graph, chunkBits)].sort())).toEqual(new Map([...bruteCounts(graph)].sort()));
      }),
      { numRuns: 200 },
    );
  });

  it('handles an import chain deeper than the call stack', () => {
    const n = 50_000;
    const graph = graphOf(n, Array.from({ length: n - 1 }, (_, i) => [i, i + 1] as [number, number]));
    const counts = dependentCounts(graph);
    expect(counts.get(`src/f${n - 1}.ts`)).toBe(n - 1);
    expect(counts.get('src/f0.ts')).toBe(0);
  });
});

describe('hubs and barrels', () => {
  const files = ['src/core/types.ts', 'src/core/index.ts', 'src/core/util.ts', ...Array.from({ length: 30 }, (_, i) => `src/app/f${i}.ts`), 'README.md'];
  const imports: [string, string][] = [
    ['src/core/index.ts', 'src/core/types.ts'],
    ['src/core/index.ts', 'src/core/util.ts'],
    ...Array.from({ length: 30 }, (_, i) => [`src/app/f${i}.ts`, 'src/core/index.ts'] as [string, string]),
  ];
  const repo = makeRepo({ files, imports });
  // Re-exports: mark index.ts's edges as re-exports.
  repo.graph.updateEachEdgeAttributes((_e, attrs, from) => (from === 'src/core/index.ts' ? { kind: 'reexport', kinds: ['reexport'] } : attrs));

  it('finds the files most of the repository depends on, and tells barrels apart', () => {
    const hubs = findHubs(repo.graph, 0.25, 20);
    expect(hubs.map((h) => [h.file, h.dependents, h.fanIn, h.barrel])).toEqual([
      ['src/core/types.ts', 31, 1, false],
      ['src/core/util.ts', 31, 1, false],
      ['src/core/index.ts', 30, 30, true],
    ]);
    expect(isBarrel(repo.graph, 'src/app/f1.ts')).toBe(false);
  });

  it('runs no issue alone for touching a hub unless the config opts in', () => {
    const plan = planWaves({
      issues: [issue(1, { body: '`src/core/types.ts`' }), issue(2, { body: '`src/app/f1.ts`' }), issue(3, { body: '`README.md`' })],
      repo,
      options: { contentionDepth: 0, maxWaves: 5 },
      now: NOW,
    });
    expect(plan.waves.map((w) => [w.kind, w.issues.map((i) => i.number)])).toEqual([['parallel', [1, 2, 3]]]);
    expect(plan.conflicts).toEqual([]);
  });

  it('makes an issue touching a hub serial with hubs "transitive", with the evidence', () => {
    const plan = planWaves({
      issues: [issue(1, { body: '`src/core/types.ts`' }), issue(2, { body: '`src/app/f1.ts`' }), issue(3, { body: '`README.md`' })],
      repo,
      options: { contentionDepth: 0, maxWaves: 5, hubs: 'transitive' },
      now: NOW,
    });
    expect(plan.waves.map((w) => [w.kind, w.issues.map((i) => i.number)])).toEqual([
      ['serial_singleton', [1]],
      ['parallel', [2, 3]],
    ]);
    expect(plan.waves[0]!.issues[0]!.serial).toBe('src/core/types.ts: 31 of 33 files depend on it');
    expect(plan.conflicts.find((c) => c.kind === 'serial')!.detail).toBe('#1 touches a hub and runs alone: src/core/types.ts: 31 of 33 files depend on it');
  });

  it('makes a lane containing a hub serial, and no hub below the thresholds', () => {
    const lane = planWaves({ issues: [issue(1, { labels: ['lane:core'] }), issue(2, { body: '`README.md`' })], repo, options: { maxWaves: 5, hubs: 'transitive' }, now: NOW });
    expect(lane.waves[0]!.issues[0]!.serial).toBe('src/core/types.ts: 31 of 33 files depend on it');
    const off = planWaves({ issues: [issue(1, { body: '`src/core/types.ts`' }), issue(2, { body: '`README.md`' })], repo, options: { hubThreshold: 1 }, now: NOW });
    expect(off.waves[0]!.kind).toBe('parallel');
    const small = planWaves({ issues: [issue(1, { body: '`src/core/types.ts`' }), issue(2, { body: '`README.md`' })], repo, options: { hubMinDependents: 40 }, now: NOW });
    expect(small.waves[0]!.kind).toBe('parallel');
  });

  it('keeps hubThreshold and hubMinDependents working for those who set them: either turns the transitive rule on', () => {
    const two = [issue(1, { body: '`src/core/types.ts`' }), issue(2, { body: '`README.md`' })];
    const threshold = planWaves({ issues: two, repo, options: { hubThreshold: 0.25 }, now: NOW });
    expect(threshold.waves[0]!.issues[0]!.serial).toBe('src/core/types.ts: 31 of 33 files depend on it');
    const minimum = planWaves({ issues: two, repo, options: { hubMinDependents: 10 }, now: NOW });
    expect(minimum.waves[0]!.kind).toBe('serial_singleton');
    const off = planWaves({ issues: two, repo, options: { hubs: 'off', hubThreshold: 0.25 }, now: NOW });
    expect(off.waves[0]!.kind).toBe('parallel');
  });

  it('makes only files most of the repository imports directly hubs with hubs "fan-in"', () => {
    const issues = [issue(1, { body: '`src/core/types.ts`' }), issue(2, { body: '`src/core/index.ts`' }), issue(3, { body: '`README.md`' })];
    const plan = planWaves({ issues, repo, options: { hubs: 'fan-in', contentionDepth: 0, maxWaves: 5 }, now: NOW });
    expect(plan.waves.map((w) => [w.kind, w.issues.map((i) => i.number)])).toEqual([
      ['parallel', [1, 3]],
      ['serial_singleton', [2]],
    ]);
    expect(plan.waves[1]!.issues[0]!.serial).toBe('src/core/index.ts: 30 of 33 files import it directly (a barrel re-exporting its folder)');
    expect(findHubs(repo.graph, 0.25, 20, 'fan-in').map((h) => h.file)).toEqual(['src/core/index.ts']);
  });

  it('are still reported by the graph summary, with transitive dependents and fan-in, whatever the plan rule', () => {
    const report = summarizeGraph(repo.graph, { root: '.', head: null, packages: [] });
    expect(report.hubs).toEqual([
      { file: 'src/core/types.ts', dependents: 31, fanIn: 1, barrel: false },
      { file: 'src/core/util.ts', dependents: 31, fanIn: 1, barrel: false },
      { file: 'src/core/index.ts', dependents: 30, fanIn: 30, barrel: true },
    ]);
  });
});

describe('a repository whose core is one import cycle', () => {
  // 40 files in a ring (each imports the next), 10 files outside it: every file of the ring has
  // 39 transitive dependents, so the transitive rule made every one of them a hub.
  const ring = Array.from({ length: 40 }, (_, i) => `src/core/c${i}.ts`);
  const files = [...ring, ...Array.from({ length: 10 }, (_, i) => `src/app/a${i}.ts`)];
  const imports: [string, string][] = [...ring.map((file, i) => [file, ring[(i + 1) % ring.length]!] as [string, string]), ['src/app/a0.ts', 'src/core/c0.ts']];
  const repo = makeRepo({ files, imports });
  // Issues on every other file of the ring: no two of them import each other's files.
  const issues = Array.from({ length: 8 }, (_, i) => issue(i + 1, { body: `\`src/core/c${2 * i}.ts\`` }));

  it('plans issues on the cycle in parallel by default, as direct-import contention allows', () => {
    const plan = planWaves({ issues, repo, options: { maxWaves: 10 }, now: NOW });
    expect(plan.waves.map((w) => w.issues.length)).toEqual([4, 4]);
    expect(plan.waves.every((w) => w.kind === 'parallel')).toBe(true);
  });

  it('finds no hub in the cycle by fan-in, and every file of it by transitive dependents', () => {
    expect(planWaves({ issues, repo, options: { maxWaves: 10, hubs: 'fan-in' }, now: NOW }).waves).toHaveLength(2);
    expect(planWaves({ issues, repo, options: { maxWaves: 10, hubs: 'transitive' }, now: NOW }).waves).toHaveLength(8);
  });
});
