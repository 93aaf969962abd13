import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRepoGraph, parsePriorLog, readHistoryPrior, scanSymbols, type FileSymbols, type GraphBuildStats } from '@waves/planner';
import { inferRepo } from '../helpers/infer-repo.js';
import type { TempRepo } from '../helpers/temp-repo.js';

describe('scanSymbols: what a file declares and the messages it holds', () => {
  it('lists top-level declarations of every kind and the members of classes, never what it re-exports', () => {
    const { names } = scanSymbols(
      [
        "import { x } from './y';",
        "export { reexported } from './z';",
        "export * from './everything';",
        'export function useCart() { const inner = 1; function nested() {} }',
        'export default class CartView extends Base<Props> {',
        '  private count = 0;',
        '  static create(): CartView { return new CartView(); }',
        '  get total() { return 1 }',
        '  async load<T>(x: T) {}',
        '}',
        'export const enum Mode { A }',
        'type Options = { a: string };',
        'interface Props { b: number }',
        'const { a, b } = z;',
        'export abstract class Shape {}',
        'function* gen() {}',
        'declare const injected: string;',
        'namespace Tools {}',
        'obj.type = 1; let x = y.function;',
      ].join('\n'),
    );
    expect(names).toEqual(['useCart', 'CartView', 'count', 'create', 'total', 'load', 'Mode', 'Options', 'Props', 'Shape', 'gen', 'injected', 'Tools', 'x']);
    expect(names).not.toContain('reexported');
    expect(names).not.toContain('inner');
  });

  it('keeps message-like literals and template heads, not specifiers or short keys, and at most 256', () => {
    const { literals } = scanSymbols(
      [
        "import a from 'some-long-package-name';",
        "const b = require('another-long-package');",
        "throw new Error('Cannot charge an empty cart');",
        'log(`Failed to resolve ${name} in the config`);',
        "const key = 'id';",
        ...Array.from({ length: 300 }, (_, i) => `const m${i} = "message number ${i} here";`),
      ].join('\n'),
    );
    expect(literals.slice(0, 2)).toEqual(['Cannot charge an empty cart', 'Failed to resolve ']);
    expect(literals).not.toContain('some-long-package-name');
    expect(literals).not.toContain('another-long-package');
    expect(literals).not.toContain('id');
    expect(literals).toHaveLength(256);
  });

  it('stays linear on pathological input', () => {
    const text = `${'class A { '.repeat(5000)}${'"'.repeat(20000)}${'`${'.repeat(5000)}`;
    const { names, literals } = scanSymbols(text);
    expect(names.length).toBeLessThanOrEqual(200);
    expect(literals.length).toBeLessThanOrEqual(256);
  });
});

describe('the inference index in the graph cache and the history prior', () => {
  let repo: TempRepo;
  beforeAll(async () => {
    repo = await inferRepo();
  });
  afterAll(async () => {
    await repo.dispose();
  });

  it('keeps declared names and literals in the symbols cache: a warm build reads them without scanning', async () => {
    const run = async () => {
      let symbols: ReadonlyMap<string, FileSymbols> | null = null;
      let stats: GraphBuildStats | null = null;
      await buildRepoGraph(repo.root, { onSymbols: (read) => (symbols = read()), onStats: (s) => (stats = s) });
      return { symbols: symbols!, stats: stats! };
    };
    const cold = await run();
    const warm = await run();
    expect(cold.stats.scanned).toBeGreaterThan(0);
    expect(warm.stats).toMatchObject({ scanned: 0, cache: 'warm' });
    expect([...warm.symbols]).toEqual([...cold.symbols]);
    expect(warm.symbols.get('packages/core/src/money.ts')).toMatchObject({ names: ['cartTotal', 'DiscountRule', 'applyDiscount'], literals: [], packages: ['decimal.js-light'] });
    // The words of its text, with their counts, most frequent first: what an issue's prose can meet.
    expect(warm.symbols.get('packages/core/src/money.ts')!.words).toMatch(/^\S+\*\d+ /);
    expect(warm.symbols.get('packages/core/src/money.ts')!.words!.split(' ').map((w) => w.replace(/\*\d+$/, ''))).toEqual(expect.arrayContaining(['discount', 'cart', 'total', 'rule']));
  });

  it('reads only the history before the commit it is given, newest first', async () => {
    const first = (await repo.git('rev-list', '--max-parents=0', 'HEAD')).stdout.trim();
    const second = (await repo.git('rev-parse', 'HEAD~1')).stdout.trim();
    expect((await readHistoryPrior(repo.root, { cache: false }))!.map((c) => c.subject)).toEqual([
      'fix(payments): retry the provider once',
      'fix(api): refunds keep an audit trail',
      'feat(api): partial refunds of an order',
      'initial',
    ]);
    expect((await readHistoryPrior(repo.root, { commit: second, cache: false }))!.map((c) => c.subject)).toEqual(['fix(api): refunds keep an audit trail', 'feat(api): partial refunds of an order', 'initial']);
    expect((await readHistoryPrior(repo.root, { commit: first, cache: false }))!.map((c) => c.subject)).toEqual(['initial']);
  });

  it('parses git log output with odd subjects and drops commits of more than 30 files', () => {
    const many = Array.from({ length: 31 }, (_, i) => `f${i}.ts`).join('\0');
    const log = `\x1efix: a "quoted" | subject\n\na.ts\0b.ts\0\n\x1esweep\n\n${many}\0\n\x1eempty\n`;
    expect(parsePriorLog(log)).toEqual([{ subject: 'fix: a "quoted" | subject', files: ['a.ts', 'b.ts'] }]);
  });
});
