import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type * as Planner from '@waves/planner';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

describe('scanning on worker threads', () => {
  it('gives the same graph as the main thread alone (built package)', async () => {
    // Worker threads run the built scanner: this test uses the package as it ships.
    const planner = (await import(fileURLToPath(new URL('../../packages/planner/dist/index.js', import.meta.url)))) as typeof Planner;
    for (const name of ['graph-relative', 'graph-workspace', 'examples']) {
      const root = name === 'examples' ? fileURLToPath(new URL('../../examples/shop', import.meta.url)) : fixture(name);
      const stats: Planner.GraphBuildStats[] = [];
      const single = await planner.buildRepoGraph(root, { cache: false, workers: 0, onStats: (s) => stats.push(s) });
      const parallel = await planner.buildRepoGraph(root, { cache: false, workers: 2, parallelThreshold: 0, onStats: (s) => stats.push(s) });
      expect(stats.map((s) => s.threads)).toEqual([1, 3]);
      expect(parallel.export()).toEqual(single.export());
    }
  });
});
