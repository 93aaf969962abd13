import { writeFileSync } from 'node:fs';
import { readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { buildRepoGraph, filesToRead, GRAPH_CACHE_VERSION, type GraphBuildStats, type RepoGraph } from '@waves/planner';
import { TempRepo } from '../helpers/temp-repo.js';

function describeGraph(graph: RepoGraph): { edges: string[]; unresolved: string[] } {
  return {
    edges: graph.mapEdges((_e, a, from, to) => `${from} -> ${to} (${a.kinds.join(',')})`).sort(),
    unresolved: graph.getAttribute('unresolved').map((u) => `${u.from}: ${u.specifier}`).sort(),
  };
}

async function build(root: string, cache = true): Promise<{ graph: ReturnType<typeof describeGraph>; stats: GraphBuildStats }> {
  let stats: GraphBuildStats | undefined;
  const graph = await buildRepoGraph(root, { cache, onStats: (s) => (stats = s) });
  return { graph: describeGraph(graph), stats: stats! };
}

/** The cached build must always equal a build from scratch. */
async function expectSameAsCold(root: string): Promise<GraphBuildStats> {
  const warm = await build(root);
  const cold = await build(root, false);
  expect(warm.graph).toEqual(cold.graph);
  return warm.stats;
}

const BASE = {
  'package.json': '{ "name": "app" }',
  'src/a.ts': "import { b } from './b';\nimport { later } from './later';\nexport const a = b;\n",
  'src/b.ts': "import { c } from './c/index.js';\nexport const b = c;\n",
  'src/c/index.ts': 'export const c = 1;\n',
  'src/d.ts': "import type { T } from './types';\nexport const d = 1;\n",
  'src/types.ts': 'export type T = 1;\n',
};

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.dispose();
  repo = undefined;
});

describe('the graph cache', () => {
  it('reuses everything when nothing changed', async () => {
    repo = await TempRepo.create(BASE);
    const cold = await build(repo.root);
    expect(cold.stats).toMatchObject({ cache: 'cold', scanned: 5 });
    const warm = await build(repo.root);
    expect(warm.stats).toEqual({ sources: 5, scanned: 0, resolved: 0, cache: 'warm', threads: 1 });
    expect(warm.graph).toEqual(cold.graph);
  });

  it('re-scans only a changed file and re-resolves only its imports', async () => {
    repo = await TempRepo.create(BASE);
    await build(repo.root);
    await repo.write({ 'src/d.ts': "import { a } from './a';\nimport type { T } from './types';\nexport const d = a;\n" });
    const stats = await expectSameAsCold(repo.root);
    expect(stats).toMatchObject({ cache: 'rebuilt', scanned: 1, resolved: 2 });
  });

  it('reads a tracked link by what it leads to: its target, changed and committed, is scanned anew (red team 4)', async () => {
    repo = await TempRepo.create({ ...BASE, 'shared/impl.ts': 'export const impl = 1;\n' });
    await symlink('../shared/impl.ts', path.join(repo.root, 'src/link.ts'));
    await repo.git('add', '-A');
    await repo.git('-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', 'link');
    await build(repo.root);
    await repo.write({ 'shared/impl.ts': "import { c } from '../src/c/index.js';\nexport const impl = c;\n" });
    await repo.git('add', '-A');
    await repo.git('-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', 'impl imports c');
    await expectSameAsCold(repo.root);
    expect((await build(repo.root)).graph.edges).toContain('src/link.ts -> src/c/index.ts (static)');
  });

  it('reads sources checked out as UTF-16 (working-tree-encoding), as TypeScript does: their imports are seen (red team 4)', async () => {
    repo = await TempRepo.create(BASE);
    await repo.write({ '.gitattributes': '*.ts working-tree-encoding=UTF-16LE-BOM\n' });
    await repo.git('add', '.gitattributes');
    await repo.git('-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', 'utf-16');
    // Checked out afresh: git writes the work tree files in UTF-16 with a byte-order mark.
    await rm(path.join(repo.root, 'src'), { recursive: true, force: true });
    await repo.git('checkout', '--', 'src');
    expect((await readFile(path.join(repo.root, 'src/a.ts'))).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xfe]));
    const { graph } = await build(repo.root, false);
    expect(graph.edges).toEqual(expect.arrayContaining(['src/a.ts -> src/b.ts (static)', 'src/b.ts -> src/c/index.ts (static)']));
  });

  it('names, as skipped, a file whose name is not valid UTF-8: never lost in silence, never two such names taken for one (red team 4)', async () => {
    repo = await TempRepo.create(BASE);
    for (const byte of [0xff, 0xfe]) writeFileSync(Buffer.concat([Buffer.from(`${repo.root}/src/w`), Buffer.from([byte]), Buffer.from('.ts')]), "import { b } from './b';\n");
    await repo.git('add', '-A');
    await repo.git('-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', 'raw names');
    const graph = await buildRepoGraph(repo.root, { cache: false });
    const skipped = (graph.getAttribute('skipped') ?? []).filter((s) => s.reason.includes('not valid UTF-8'));
    expect(skipped.map((s) => s.file)).toEqual(['src/w\ufffd.ts']);
    expect(graph.nodes().some((n) => n.includes('\ufffd'))).toBe(false);
  });

  it('resolves a missing import once its file is added, and drops the edge of a deleted file', async () => {
    repo = await TempRepo.create(BASE);
    const before = await build(repo.root);
    expect(before.graph.unresolved).toEqual(['src/a.ts: ./later']);
    await repo.write({ 'src/later.ts': 'export const later = 1;\n' });
    let stats = await expectSameAsCold(repo.root);
    expect(stats.scanned).toBe(1);
    expect((await build(repo.root)).graph.edges).toContain('src/a.ts -> src/later.ts (static)');
    await repo.remove('src/b.ts');
    stats = await expectSameAsCold(repo.root);
    expect((await build(repo.root)).graph.unresolved).toContain('src/a.ts: ./b');
  });

  it('follows a rename', async () => {
    repo = await TempRepo.create(BASE);
    await build(repo.root);
    await rename(path.join(repo.root, 'src/c/index.ts'), path.join(repo.root, 'src/c/main.ts'));
    await repo.write({ 'src/b.ts': "import { c } from './c/main.js';\nexport const b = c;\n" });
    await expectSameAsCold(repo.root);
    expect((await build(repo.root)).graph.edges).toContain('src/b.ts -> src/c/main.ts (static)');
  });

  it('notices a new file that takes precedence over the old target', async () => {
    repo = await TempRepo.create({ ...BASE, 'src/e.ts': "import { c } from './c';\nexport const e = c;\n" });
    expect((await build(repo.root)).graph.edges).toContain('src/e.ts -> src/c/index.ts (static)');
    await repo.write({ 'src/c.ts': 'export const c = 2;\n' });
    await expectSameAsCold(repo.root);
    expect((await build(repo.root)).graph.edges).toContain('src/e.ts -> src/c.ts (static)');
  });

  it('notices a new file that takes precedence over the target of an alias', async () => {
    const tsconfig = '{ "compilerOptions": { "paths": { "@/*": ["./src/*"] } } }';
    repo = await TempRepo.create({ ...BASE, 'tsconfig.json': tsconfig, 'lib/g.ts': "import { c } from '@/c';\nexport const g = c;\n" });
    expect((await build(repo.root)).graph.edges).toContain('lib/g.ts -> src/c/index.ts (static)');
    await repo.write({ 'src/c.ts': 'export const c = 2;\n' });
    await expectSameAsCold(repo.root);
    expect((await build(repo.root)).graph.edges).toContain('lib/g.ts -> src/c.ts (static)');
  });

  it('notices a new file in an earlier fallback of an alias, far from the old target', async () => {
    const tsconfig = '{ "compilerOptions": { "paths": { "@x/*": ["./first/*", "./second/*"] } } }';
    repo = await TempRepo.create({ ...BASE, 'tsconfig.json': tsconfig, 'second/deep/util.ts': 'export const u = 2;\n', 'lib/h.ts': "import { u } from '@x/deep/util';\nexport const h = u;\n" });
    expect((await build(repo.root)).graph.edges).toContain('lib/h.ts -> second/deep/util.ts (static)');
    await repo.write({ 'first/deep/util.ts': 'export const u = 1;\n' });
    await expectSameAsCold(repo.root);
    expect((await build(repo.root)).graph.edges).toContain('lib/h.ts -> first/deep/util.ts (static)');
  });

  it('notices a new file under baseUrl that a bare import now names', async () => {
    const tsconfig = '{ "compilerOptions": { "baseUrl": "." } }';
    repo = await TempRepo.create({ ...BASE, 'tsconfig.json': tsconfig, 'lib/k.ts': "import { x } from 'helpers/x';\nexport const k = x;\n" });
    expect((await build(repo.root)).graph.edges.some((e) => e.startsWith('lib/k.ts'))).toBe(false);
    await repo.write({ 'helpers/x/index.ts': 'export const x = 1;\n' });
    await expectSameAsCold(repo.root);
    expect((await build(repo.root)).graph.edges).toContain('lib/k.ts -> helpers/x/index.ts (static)');
  });

  it('re-resolves everything when a tsconfig changes', async () => {
    repo = await TempRepo.create({ ...BASE, 'src/f.ts': "import { c } from '@/c';\nexport const f = c;\n", 'tsconfig.json': '{}' });
    expect((await build(repo.root)).graph.edges.some((e) => e.startsWith('src/f.ts'))).toBe(false);
    await repo.write({ 'tsconfig.json': '{ "compilerOptions": { "paths": { "@/*": ["./src/*"] } } }' });
    const stats = await expectSameAsCold(repo.root);
    expect(stats.scanned).toBe(0);
    expect((await build(repo.root)).graph.edges).toContain('src/f.ts -> src/c/index.ts (static)');
  });

  it('re-resolves everything when a config an extends names changes, whatever it is called (config/base.json), and when it grows past what is read', async () => {
    repo = await TempRepo.create({
      'src/a.ts': "import { y } from '@x/b';\nexport const a = y;\n",
      'src/b.ts': 'export const y = 1;\n',
      'tsconfig.json': '{ "extends": "./config/base.json" }\n',
      'config/base.json': '{ "compilerOptions": { "baseUrl": "..", "paths": { "@y/*": ["src/*"] } } }\n',
    });
    expect((await expectSameAsCold(repo.root)) && (await build(repo.root)).graph.edges).toEqual([]);
    // The alias now names what src/a.ts imports: an edge appears.
    await repo.write({ 'config/base.json': '{ "compilerOptions": { "baseUrl": "..", "paths": { "@x/*": ["src/*"] } } }\n' });
    await expectSameAsCold(repo.root);
    expect((await build(repo.root)).graph.edges).toEqual(['src/a.ts -> src/b.ts (static)']);
    // Past 2 MB it is not read at all: the alias is gone, as a build from scratch finds.
    await repo.write({ 'config/base.json': `{ "compilerOptions": { "baseUrl": "..", "paths": { "@x/*": ["src/*"] } }, "x": "${'y'.repeat(2 * 1024 * 1024)}" }\n` });
    await expectSameAsCold(repo.root);
  });

  it('keeps every config the cached resolutions stand on in the key, across builds that re-resolve only a few imports', async () => {
    repo = await TempRepo.create({
      'src/a.ts': "import { y } from '@x/b';\nexport const a = y;\n",
      'src/b.ts': 'export const y = 1;\n',
      'lib/tsconfig.json': '{ "extends": "../config/lib.json" }\n',
      'lib/c.ts': "import { d } from './d';\nexport const c = d;\n",
      'lib/d.ts': 'export const d = 1;\n',
      'tsconfig.json': '{ "extends": "./config/base.json" }\n',
      'config/base.json': '{ "compilerOptions": { "baseUrl": "..", "paths": { "@x/*": ["src/*"] } } }\n',
      'config/lib.json': '{}\n',
    });
    await expectSameAsCold(repo.root);
    // A change that re-resolves lib/c.ts alone (its tsconfig chain read, not the root's)…
    await repo.write({ 'lib/c.ts': "import { d } from './d';\nexport const c = d + 1;\n" });
    await expectSameAsCold(repo.root);
    // …must not forget that src/a.ts's resolution stands on config/base.json.
    await repo.write({ 'config/base.json': '{ "compilerOptions": { "baseUrl": "..", "paths": { "@y/*": ["src/*"] } } }\n' });
    await expectSameAsCold(repo.root);
    expect((await build(repo.root)).graph.edges).not.toContain('src/a.ts -> src/b.ts (static)');
  });

  it('ignores a corrupt cache and rebuilds it', async () => {
    repo = await TempRepo.create(BASE);
    await build(repo.root);
    const file = path.join(repo.root, `.waves/cache/graph-v${GRAPH_CACHE_VERSION}.json`);
    const tool = `waves-graph-${GRAPH_CACHE_VERSION}`;
    const garbage = [
      `{"version":${GRAPH_CACHE_VERSION},`,
      'null',
      JSON.stringify({ version: GRAPH_CACHE_VERSION, tool, configKey: 'x', files: [], extraConfigs: {}, entries: { 'src/a.ts': { id: 1 } } }),
      JSON.stringify({ version: GRAPH_CACHE_VERSION, tool, configKey: 'x', files: [], extraConfigs: {}, entries: { 'src/a.ts': { id: 'x', imports: [['./b', 'weird']], targets: [''] } } }),
    ];
    for (const text of garbage) {
      await writeFile(file, text);
      const rebuilt = await build(repo.root);
      expect(rebuilt.stats.cache).toBe('cold');
      expect(rebuilt.graph).toEqual((await build(repo.root, false)).graph);
    }
  });

  it('ignores a cache written by another version', async () => {
    repo = await TempRepo.create(BASE);
    await build(repo.root);
    const file = path.join(repo.root, `.waves/cache/graph-v${GRAPH_CACHE_VERSION}.json`);
    const cache = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...cache, version: 0 }));
    expect((await build(repo.root)).stats.cache).toBe('cold');
  });

  it('resolves a JSON import once its file is added, and forgets it when the file goes', async () => {
    repo = await TempRepo.create({ ...BASE, 'src/cfg.ts': "import data from './data.json' with { type: 'json' };\nexport const cfg = data;\n" });
    expect((await build(repo.root)).graph.unresolved).toContain('src/cfg.ts: ./data.json');
    await repo.write({ 'src/data.json': '{}' });
    await expectSameAsCold(repo.root);
    expect((await build(repo.root)).graph.edges).toContain('src/cfg.ts -> src/data.json (static)');
    await repo.remove('src/data.json');
    await expectSameAsCold(repo.root);
    expect((await build(repo.root)).graph.unresolved).toContain('src/cfg.ts: ./data.json');
  });

  it('ignores the cache of version 4, which resolved JSON imports to nothing', async () => {
    repo = await TempRepo.create({ ...BASE, 'src/data.json': '{}', 'src/cfg.ts': "import data from './data.json';\nexport const cfg = data;\n" });
    await build(repo.root);
    const current = path.join(repo.root, `.waves/cache/graph-v${GRAPH_CACHE_VERSION}.json`);
    const cache = JSON.parse(await readFile(current, 'utf8'));
    // What version 4 wrote for the same tree: the same entries, the JSON import external ('').
    cache.entries['src/cfg.ts'].targets = [''];
    await rm(current);
    await writeFile(path.join(repo.root, '.waves/cache/graph-v4.json'), JSON.stringify({ ...cache, version: 4, tool: 'waves-graph-4' }));
    const rebuilt = await build(repo.root);
    expect(rebuilt.stats.cache).toBe('cold');
    expect(rebuilt.graph.edges).toContain('src/cfg.ts -> src/data.json (static)');
  });

  it('keeps its own files out of the repository', async () => {
    repo = await TempRepo.create(BASE);
    await build(repo.root);
    const status = await repo.git('status', '--porcelain');
    expect(status.stdout).toBe('');
  });

  it('keys files by content outside git', async () => {
    repo = await TempRepo.create(BASE, { git: false });
    await build(repo.root);
    expect((await build(repo.root)).stats.cache).toBe('warm');
    await repo.write({ 'src/types.ts': 'export type T = 2;\n' });
    expect(await expectSameAsCold(repo.root)).toMatchObject({ scanned: 1 });
  });

  it('always equals a build from scratch, whatever sequence of edits', async () => {
    // Relative imports, an alias with two fallbacks and baseUrl paths, over files that come and go.
    const names = ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/c/index.ts', 'src/d/index.ts', 'src/d.js', 'first/u.ts', 'second/u.ts', 'second/v/index.ts', 'lib/w.ts'];
    const edit = fc.record({
      file: fc.constantFrom(...names),
      action: fc.constantFrom('write', 'remove'),
      imports: fc.subarray(['./a', './b', './c', './d', '../src/c.js', './c/index.js', './nope', '@x/u', '@x/v', 'lib/w', 'src/d']),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 6 }), async (edits) => {
        const r = await TempRepo.create({
          'tsconfig.json': '{ "compilerOptions": { "baseUrl": ".", "paths": { "@x/*": ["./first/*", "./second/*"] } } }',
          'src/a.ts': "import './b';\n",
          'src/b.ts': "import './c';\n",
          'src/c/index.ts': '',
        });
        try {
          await build(r.root);
          for (const e of edits) {
            if (e.action === 'remove') await r.remove(e.file);
            else await r.write({ [e.file]: e.imports.map((i) => `import '${i}';`).join('\n') });
            await expectSameAsCold(r.root);
          }
        } finally {
          await r.dispose();
        }
      }),
      { numRuns: 15 },
    );
  }, 120_000);

  it('keeps a past checkout in a slot of the repository: seeded by blob id from the main cache, resolved afresh, warm the next time', async () => {
    repo = await TempRepo.create(BASE);
    await build(repo.root);
    await repo.git('worktree', 'add', '-q', '--detach', '.waves/past', 'HEAD');
    const past = path.join(repo.root, '.waves/past');
    const inSlot = async () => {
      let stats: GraphBuildStats | undefined;
      const graph = await buildRepoGraph(past, { cacheAt: { root: repo!.root, slot: 'backtest' }, onStats: (s) => (stats = s) });
      return { graph: describeGraph(graph), stats: stats! };
    };
    const seeded = await inSlot();
    expect(seeded.stats).toMatchObject({ scanned: 0, resolved: 4 });
    expect(seeded.graph).toEqual((await build(past, false)).graph);
    expect(JSON.parse(await readFile(path.join(repo.root, `.waves/cache/graph-v${GRAPH_CACHE_VERSION}-backtest.json`), 'utf8')).files).toContain('src/a.ts');
    expect((await inSlot()).stats).toMatchObject({ cache: 'warm', scanned: 0, resolved: 0 });
    // Nothing was written in the past checkout itself.
    await expect(readFile(path.join(past, '.waves/cache', `graph-v${GRAPH_CACHE_VERSION}.json`))).rejects.toThrow();
  });

  it('names what a checkout must hold for the build: the manifests, and only the sources the cache lacks', async () => {
    repo = await TempRepo.create(BASE);
    const tree = async () =>
      (await repo!.git('ls-files', '-s')).stdout.split('\n').filter(Boolean).map((line) => ({ path: line.split('\t')[1]!, blob: line.split(' ')[1]! }));
    const cacheAt = { root: repo.root, slot: 'backtest' };
    const everything = { globs: ['*.json', 'pnpm-workspace.yaml', '*.ts', '*.tsx', '*.mts', '*.cts', '*.js', '*.jsx', '*.mjs', '*.cjs'], paths: [], exclude: [] };
    expect(await filesToRead(await tree(), cacheAt)).toEqual(everything);
    expect(await filesToRead(await tree(), false)).toEqual(everything);
    await build(repo.root);
    // The main cache seeds the slot: nothing to read but the manifests.
    expect(await filesToRead(await tree(), cacheAt)).toEqual({ globs: ['*.json', 'pnpm-workspace.yaml'], paths: [], exclude: [] });
    const files = (await tree()).map((f) => (f.path === 'src/b.ts' ? { ...f, blob: '0'.repeat(40) } : f));
    expect(await filesToRead(files, cacheAt)).toEqual({ globs: ['*.json', 'pnpm-workspace.yaml'], paths: ['src/b.ts'], exclude: [] });
    expect(await filesToRead([...files, { path: 'src/link.ts', blob: '1'.repeat(40), link: true }], cacheAt)).toEqual(everything);
  });

  it('never checks out a file larger than the build reads, nor one the clone lacks that the build does not need', async () => {
    const blob = (n: number) => String(n).repeat(40).slice(0, 40);
    const files = [
      { path: 'package.json', blob: blob(1), size: 40 },
      { path: 'src/a.ts', blob: blob(2), size: 30 },
      { path: 'src/huge.ts', blob: blob(3), size: 3 * 1024 * 1024 },
      { path: 'gen/typedoc.json', blob: blob(4), size: 9 * 1024 * 1024 },
      // Lacking from the clone: a picture is left out, a source or a manifest is not (its checkout fails, and says which).
      { path: 'assets/logo.png', blob: blob(5), size: null },
      { path: 'src/lost.ts', blob: blob(6), size: null },
      { path: 'packages/x/package.json', blob: blob(7), size: null },
    ];
    const read = await filesToRead(files, false);
    expect(read.exclude).toEqual(['src/huge.ts', 'gen/typedoc.json', 'assets/logo.png']);
    expect(read.globs).toContain('*.ts');
  });

  it('names the sources whose words a build that needed no inference left out: scope inference counts them in the checkout', async () => {
    repo = await TempRepo.create(BASE);
    const tree = async () =>
      (await repo!.git('ls-files', '-s')).stdout.split('\n').filter(Boolean).map((line) => ({ path: line.split('\t')[1]!, blob: line.split(' ')[1]! }));
    const cacheAt = { root: repo.root, slot: 'backtest' };
    await buildRepoGraph(repo.root, { words: false });
    const sources = (await tree()).map((f) => f.path).filter((f) => f.endsWith('.ts')).sort();
    expect((await filesToRead(await tree(), cacheAt)).paths.sort()).toEqual(sources);
    // Once a build that counts them has run, nothing more.
    await buildRepoGraph(repo.root, { onSymbols: (read) => void read() });
    expect(await filesToRead(await tree(), cacheAt)).toEqual({ globs: ['*.json', 'pnpm-workspace.yaml'], paths: [], exclude: [] });
  });
});
