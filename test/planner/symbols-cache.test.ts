import { existsSync, readdirSync, utimesSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildRepoGraph, GRAPH_CACHE_VERSION, SYMBOLS_CACHE_VERSION, type FileSymbols, type GraphBuildStats } from '@waves/planner';
import { inferRepo } from '../helpers/infer-repo.js';
import type { TempRepo } from '../helpers/temp-repo.js';

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.dispose();
  repo = undefined;
});

const graphFile = (root: string) => path.join(root, '.waves/cache', `graph-v${GRAPH_CACHE_VERSION}.json`);
const symbolsFile = (root: string) => path.join(root, '.waves/cache', `symbols-v${SYMBOLS_CACHE_VERSION}.json`);

/** A build; `read` says whether inference asks for the symbols. */
async function build(root: string, read: boolean, cache: boolean | 'read-only' = true, words = true) {
  let symbols = null as ReadonlyMap<string, FileSymbols> | null;
  let stats = null as GraphBuildStats | null;
  await buildRepoGraph(root, { cache, words, onStats: (s) => (stats = s), onSymbols: (reader) => (symbols = read ? reader() : null) });
  return { symbols, stats: stats! };
}

describe('the symbols cache, beside the graph cache', () => {
  it('a cold build writes both caches in one scan; the graph cache holds no names or literals', async () => {
    repo = await inferRepo();
    const cold = await build(repo.root, false);
    expect(cold.stats.cache).toBe('cold');
    const graph = JSON.parse(await readFile(graphFile(repo.root), 'utf8'));
    expect(graph.entries['packages/core/src/money.ts']).not.toHaveProperty('names');
    // Keyed by blob id, as git knows it.
    const symbols = JSON.parse(await readFile(symbolsFile(repo.root), 'utf8'));
    const blob = async (file: string) => (await repo!.git('rev-parse', `HEAD:${file}`)).stdout.trim();
    expect(graph.entries['packages/core/src/money.ts'].id).toBe(await blob('packages/core/src/money.ts'));
    const [names] = symbols.entries[await blob('packages/core/src/money.ts')];
    expect(names.split(' ')).toEqual(['cartTotal', 'DiscountRule', 'applyDiscount']);
    expect(symbols.entries[await blob('packages/payments/src/stripe.ts')][1].split('\n')).toContain('Payment provider timed out after retries');
  });

  it('a warm build that needs no symbols never reads the symbols file: a corrupt one stays as it was', async () => {
    repo = await inferRepo();
    const cold = await build(repo.root, true);
    await writeFile(symbolsFile(repo.root), '{"version": 1, "tool"');
    const warm = await build(repo.root, false);
    expect(warm.stats).toMatchObject({ scanned: 0, cache: 'warm' });
    expect(await readFile(symbolsFile(repo.root), 'utf8')).toBe('{"version": 1, "tool"');
    // Asked for them, it rebuilds what is missing: the same symbols as the cold build, and a valid cache.
    const again = await build(repo.root, true);
    expect(again.stats).toMatchObject({ scanned: 0, cache: 'warm' });
    expect([...again.symbols!]).toEqual([...cold.symbols!]);
    const blob = (await repo.git('rev-parse', 'HEAD:packages/core/src/money.ts')).stdout.trim();
    expect(JSON.parse(await readFile(symbolsFile(repo.root), 'utf8')).entries[blob][0]).toBe('cartTotal DiscountRule applyDiscount');
  });

  it('keys each file by its content (blob) id: a changed file is scanned again, an unchanged one comes from the cache', async () => {
    repo = await inferRepo();
    await build(repo.root, true);
    // Mark an unchanged file's cached entry, so that reading it from the cache shows.
    const cache = JSON.parse(await readFile(symbolsFile(repo.root), 'utf8'));
    const checkout = (await repo.git('rev-parse', 'HEAD:packages/api/src/routes/checkout.ts')).stdout.trim();
    const money = (await repo.git('rev-parse', 'HEAD:packages/core/src/money.ts')).stdout.trim();
    cache.entries[checkout][0] = 'fromTheCache';
    await writeFile(symbolsFile(repo.root), JSON.stringify(cache));
    await repo.write({ 'packages/core/src/money.ts': 'export function roundHalfUp(x: number) { return Math.round(x); }\n' });
    const rebuilt = await build(repo.root, true);
    expect(rebuilt.stats).toMatchObject({ scanned: 1, cache: 'rebuilt' });
    expect(rebuilt.symbols!.get('packages/core/src/money.ts')?.names).toEqual(['roundHalfUp']);
    expect(rebuilt.symbols!.get('packages/api/src/routes/checkout.ts')).toMatchObject({ names: ['fromTheCache'], literals: [], packages: [] });
    // The cache now holds the changed file under its new id, and no longer the old content.
    const after = JSON.parse(await readFile(symbolsFile(repo.root), 'utf8'));
    // Its words too, most frequent first (`round` twice: `roundHalfUp`, `Math.round`), keywords left out.
    expect(Object.values(after.entries)).toContainEqual(['roundHalfUp', '', 'round*2 half math']);
    expect(after.entries).not.toHaveProperty(money);
    expect(after.entries[checkout][0]).toBe('fromTheCache');
  });

  it('takes away the symbols caches of older versions when it writes its own (they are never read again)', async () => {
    repo = await inferRepo();
    await mkdir(path.join(repo.root, '.waves/cache'), { recursive: true });
    const old = path.join(repo.root, '.waves/cache', `symbols-v${SYMBOLS_CACHE_VERSION - 1}.json`);
    const oldSlot = path.join(repo.root, '.waves/cache', `symbols-v${SYMBOLS_CACHE_VERSION - 1}-backtest.json`);
    const other = path.join(repo.root, '.waves/cache', 'notes.json');
    for (const file of [old, oldSlot, other]) await writeFile(file, '{}');
    await build(repo.root, false);
    expect(existsSync(symbolsFile(repo.root))).toBe(true);
    expect([existsSync(old), existsSync(oldSlot), existsSync(other)]).toEqual([false, false, true]);
  });

  it('a build that needs no inference leaves the words out; the first that does counts them, the same as a full scan, and keeps them', async () => {
    repo = await inferRepo();
    await build(repo.root, false, true, false);
    const lean = JSON.parse(await readFile(symbolsFile(repo.root), 'utf8'));
    expect(Object.values(lean.entries).every((entry) => (entry as string[]).length === 2)).toBe(true);
    const warm = await build(repo.root, true);
    expect(warm.stats).toMatchObject({ scanned: 0, cache: 'warm' });
    const full = JSON.parse(await readFile(symbolsFile(repo.root), 'utf8'));
    expect(Object.values(full.entries).every((entry) => (entry as string[]).length === 3)).toBe(true);
    // The same words as a cold build that counted them in its scan.
    const again = await inferRepo();
    try {
      const cold = await build(again.root, true, false);
      expect([...warm.symbols!].map(([file, s]) => [file, s.words])).toEqual([...cold.symbols!].map(([file, s]) => [file, s.words]));
      expect(warm.symbols!.get('packages/core/src/money.ts')?.words).toMatch(/\bdiscount\b/);
    } finally {
      await again.dispose();
    }
  });

  it('a cold build that counts no words keeps the words an earlier plan counted for the same contents', async () => {
    repo = await inferRepo();
    await build(repo.root, true);
    await rm(graphFile(repo.root));
    await build(repo.root, false, true, false);
    const after = JSON.parse(await readFile(symbolsFile(repo.root), 'utf8'));
    expect(Object.values(after.entries).every((entry) => (entry as string[]).length === 3)).toBe(true);
  });

  it('keeps no words read from a file whose content is not the one the listing named (a skip-worktree file changed in place)', async () => {
    repo = await inferRepo();
    await build(repo.root, false, true, false);
    const file = 'packages/core/src/money.ts';
    await repo.git('update-index', '--skip-worktree', file);
    await repo.write({ [file]: 'export const x = 1;\n// zebrasecret quagga zebrasecret\n' });
    const read = await build(repo.root, true);
    expect(read.symbols!.get(file)?.words ?? '').not.toMatch(/zebrasecret/);
    // Its names and literals, from the content git knows, stand.
    expect(read.symbols!.get(file)?.names).toEqual(['cartTotal', 'DiscountRule', 'applyDiscount']);
  });

  it('ignores and rebuilds a cache whose entries do not have the shape it writes', async () => {
    repo = await inferRepo();
    await build(repo.root, false);
    const cache = JSON.parse(await readFile(symbolsFile(repo.root), 'utf8'));
    const [id] = Object.keys(cache.entries);
    for (const forged of [
      ['a', 'b', 'c', 'd'],
      // Millions of words (or names, or literals) no scan writes: a plan would run out of memory on them.
      ['a', 'b', Array.from({ length: 100_000 }, (_, i) => `w${i}*9`).join(' ')],
      ['a '.repeat(20_000), 'b', 'c'],
    ]) {
      cache.entries[id!] = forged;
      await writeFile(symbolsFile(repo.root), JSON.stringify(cache));
      const rebuilt = await build(repo.root, true);
      expect([...rebuilt.symbols!.values()].some((s) => s.names.includes('a') && s.literals.includes('b'))).toBe(false);
      const after = JSON.parse(await readFile(symbolsFile(repo.root), 'utf8'));
      expect(Object.values(after.entries).every((entry) => (entry as string[]).length === 3 && (entry as string[])[0] !== 'a')).toBe(true);
    }
  });

  it('sweeps the temporary files killed writers left, leaves none when the cache cannot be replaced, and keeps an old-named directory', async () => {
    repo = await inferRepo();
    const dir = path.join(repo.root, '.waves/cache');
    await mkdir(dir, { recursive: true });
    const stale = path.join(dir, `symbols-v${SYMBOLS_CACHE_VERSION}.json.999999999.tmp`);
    await writeFile(stale, '');
    const old = (Date.now() - 2 * 60_000) / 1000;
    utimesSync(stale, old, old);
    const oldDir = path.join(dir, `symbols-v${SYMBOLS_CACHE_VERSION - 1}-x.json`);
    await mkdir(oldDir);
    const oldFile = path.join(dir, `symbols-v${SYMBOLS_CACHE_VERSION - 1}.json`);
    await writeFile(oldFile, '{}');
    await build(repo.root, false);
    expect([existsSync(stale), existsSync(oldDir), existsSync(oldFile)]).toEqual([false, true, false]);
    // A directory where the cache goes: the write fails, and no temporary file stays behind.
    await rm(symbolsFile(repo.root));
    await mkdir(symbolsFile(repo.root));
    await build(repo.root, true);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('a read-only cache is read but never written', async () => {
    repo = await inferRepo();
    await build(repo.root, false);
    await writeFile(symbolsFile(repo.root), 'not json');
    const readOnly = await build(repo.root, true, 'read-only');
    expect(readOnly.symbols!.get('packages/core/src/money.ts')?.names).toEqual(['cartTotal', 'DiscountRule', 'applyDiscount']);
    expect(await readFile(symbolsFile(repo.root), 'utf8')).toBe('not json');
  });
});
