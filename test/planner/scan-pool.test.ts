import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

  it('loads TypeScript on one thread at most: what the main thread cannot lex alone goes to a worker, and the graph is the same', async () => {
    const dist = fileURLToPath(new URL('../../packages/planner/dist/index.js', import.meta.url));
    const planner = (await import(dist)) as typeof Planner;
    const root = mkdtempSync(path.join(tmpdir(), 'waves-scan-pool-'));
    try {
      writeFileSync(path.join(root, 'shared.js'), 'export const shared = 1;\n');
      // Import-shaped text inside a template literal: the lexer passes over it unread, so the parser decides (no import).
      for (let i = 0; i < 12; i++) {
        const tricky = i % 2 === 0 ? "const generated = `\nimport x from './missing.js';\n`;\n" : '';
        writeFileSync(path.join(root, `f${i}.js`), `import { shared } from './shared.js';\n${tricky}export const f${i} = shared;\n`);
      }
      writeFileSync(path.join(root, '.gitignore'), 'child.mjs\n');
      execFileSync('git', ['init', '-q'], { cwd: root });
      execFileSync('git', ['add', '-A'], { cwd: root });
      const child = path.join(root, 'child.mjs');
      writeFileSync(child, `
        import { createRequire } from 'node:module';
        const planner = await import(process.argv[2]);
        const graph = await planner.buildRepoGraph(process.argv[3], { cache: false, workers: 1, parallelThreshold: 0, onStats: (s) => console.error('threads', s.threads) });
        const loaded = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('ts-morph') || k.includes('typescript.js'));
        console.log(JSON.stringify({ graph: graph.export(), loaded }));
      `);
      const out = JSON.parse(execFileSync(process.execPath, [child, dist, root], { encoding: 'utf8' })) as { graph: unknown; loaded: boolean };
      const single = await planner.buildRepoGraph(root, { cache: false, workers: 0 });
      expect(out.graph).toEqual(single.export());
      expect(single.size).toBe(12);
      // The main thread's share held six of the tricky files; none was parsed there.
      expect(out.loaded).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
