import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoTree, inferCandidates, inferenceIndexOf, loadRepo, type Candidate, type RepoIndex } from '@waves/planner';
import { inferRepo } from '../helpers/infer-repo.js';
import type { TempRepo } from '../helpers/temp-repo.js';

let repo: TempRepo;
let index: RepoIndex;

beforeAll(async () => {
  repo = await inferRepo();
  index = await loadRepo(repo.root, { cache: false });
});
afterAll(async () => {
  await repo.dispose();
});

function infer(title: string, body = '', lanes?: Record<string, { paths: string[]; keywords: string[] }>): Candidate[] {
  return inferCandidates({ title, body }, inferenceIndexOf(index), createRepoTree(index.files, index.packages), lanes ? { lanes } : {});
}

function top(candidates: Candidate[]): { path: string; kinds: string[] } {
  const best = candidates[0]!;
  return { path: best.path, kinds: [...new Set(best.evidence.map((e) => e.kind))] };
}

describe('scope inference: each kind of evidence finds the file', () => {
  it('reads the names each file declares and the messages it holds into the index', () => {
    expect(index.readSymbols?.().get('packages/web/src/styles/theme.ts')?.names).toEqual(expect.arrayContaining(['applyTheme', 'ThemeOptions']));
    expect(index.readSymbols?.().get('packages/core/src/money.ts')?.names).toEqual(expect.arrayContaining(['cartTotal', 'DiscountRule', 'applyDiscount']));
    expect(index.readSymbols?.().get('packages/payments/src/stripe.ts')?.literals).toContain('Payment provider timed out after retries');
    expect(index.history?.[0]?.subject).toBe('fix(payments): retry the provider once');
  });

  it('matches a stack frame by the longest suffix of its path', () => {
    const found = infer('Crash on the settings page', 'TypeError: x is undefined\n    at applyTheme (/home/u/proj/packages/web/src/styles/theme.ts:12:5)\n    at main (/home/u/proj/node_modules/react/index.js:1:1)');
    expect(top(found)).toEqual({ path: 'packages/web/src/styles/theme.ts', kinds: expect.arrayContaining(['frame']) });
    expect(found[0]!.confidence).toBeGreaterThan(0.8);
    const frame = found[0]!.evidence.find((e) => e.kind === 'frame')!;
    expect(frame.where).toEqual({ field: 'body', line: 2 });
    expect(frame.matched).toBe('packages/web/src/styles/theme.ts');
  });

  it('reads file:///, webpack:/// and Windows paths as frames', () => {
    expect(top(infer('Broken', 'at file:///srv/app/packages/web/src/cart/CartView.tsx:3:9')).path).toBe('packages/web/src/cart/CartView.tsx');
    expect(top(infer('Broken', 'webpack:///./src/cart/useCart.ts?abc:4')).path).toBe('packages/web/src/cart/useCart.ts');
    expect(top(infer('Broken', 'at charge (C:\\Users\\me\\shop\\packages\\payments\\src\\stripe.ts:2:11)')).path).toBe('packages/payments/src/stripe.ts');
  });

  it('reads a node_modules path of a workspace package as that package, its dist file as the source', () => {
    const found = infer('Checkout fails', '    at charge (/app/node_modules/@shop/payments/dist/stripe.js:10:3)');
    expect(top(found)).toEqual({ path: 'packages/payments/src/stripe.ts', kinds: expect.arrayContaining(['frame']) });
    // A third-party package's frames point at nothing of ours.
    expect(infer('Crash', '    at render (/app/node_modules/react-dom/cjs/react-dom.development.js:1:1)').filter((c) => c.evidence.some((e) => e.kind === 'frame'))).toEqual([]);
  });

  it('matches an identifier in a code span against the declarations, a name declared once being strong', () => {
    const found = infer('Dark mode ignores `applyTheme` options');
    expect(top(found)).toEqual({ path: 'packages/web/src/styles/theme.ts', kinds: expect.arrayContaining(['identifier']) });
    expect(found[0]!.evidence.find((e) => e.kind === 'identifier')).toMatchObject({ text: 'applyTheme', where: { field: 'title' }, matched: 'declares applyTheme' });
    expect(top(infer('Totals are off in DiscountRule')).path).toBe('packages/core/src/money.ts');
  });

  it('matches component and hook names against file names', () => {
    const found = infer('CartView flickers when the cart is empty');
    expect(top(found).path).toBe('packages/web/src/cart/CartView.tsx');
    expect(found[0]!.evidence.map((e) => e.kind)).toContain('filename');
  });

  it('matches a quoted message against the string literals, template holes and case aside', () => {
    const exact = infer('Refund fails', 'The log says "Payment provider timed out after retries" twice.');
    expect(top(exact)).toEqual({ path: 'packages/payments/src/stripe.ts', kinds: expect.arrayContaining(['message']) });
    const loose = infer('Error on checkout', 'Error: cannot charge an empty cart for 3 items');
    expect(top(loose).path).toBe('packages/payments/src/stripe.ts');
  });

  it('reads the conventional-commit scope of the title as a package, and past commits of that scope', () => {
    const found = infer('fix(api): handle an empty order');
    expect(found[0]!.path.startsWith('packages/api/')).toBe(true);
    expect(found[0]!.evidence.map((e) => e.kind)).toContain('scope');
    expect(found[0]!.path).toBe('packages/api/src/routes/refunds.ts'); // the file past api commits changed
  });

  it('reads lane keywords of the config', () => {
    const found = infer('Storefront looks wrong in the palette', '', { storefront: { paths: ['packages/web'], keywords: ['storefront'] } });
    expect(found[0]!.path.startsWith('packages/web/')).toBe(true);
    expect(found.flatMap((c) => c.evidence).some((e) => e.kind === 'lane' && e.text === 'storefront')).toBe(true);
  });

  it('falls back on the words of the title, ranked against paths and declared names', () => {
    const found = infer('Checkout route rounds totals wrongly');
    expect(top(found)).toEqual({ path: 'packages/api/src/routes/checkout.ts', kinds: expect.arrayContaining(['words']) });
    expect(found[0]!.confidence).toBeLessThan(0.8);
  });

  it('adds the importers and imports of a strongly evidenced file as weaker candidates', () => {
    const found = infer('Wrong colour', '    at palette (/x/packages/web/src/styles/palette.ts:1:1)');
    const importer = found.find((c) => c.path === 'packages/web/src/styles/theme.ts');
    expect(importer?.evidence.some((e) => e.kind === 'neighbour' && e.matched === 'imports packages/web/src/styles/palette.ts')).toBe(true);
    expect(importer!.confidence).toBeLessThan(found[0]!.confidence);
  });

  it('names a third-party package as the files importing it', () => {
    expect(top(infer('Upgrade `decimal.js-light`'))).toEqual({ path: 'packages/core/src/money.ts', kinds: expect.arrayContaining(['identifier']) });
  });

  it('gives the same candidates for the same issue (deterministic), at most five, best first', () => {
    const a = infer('fix(web): theme and cart', 'CartView, useCart, applyTheme, palette');
    const b = infer('fix(web): theme and cart', 'CartView, useCart, applyTheme, palette');
    expect(a).toEqual(b);
    expect(a.length).toBeLessThanOrEqual(5);
    for (let i = 1; i < a.length; i++) expect(a[i - 1]!.confidence).toBeGreaterThanOrEqual(a[i]!.confidence);
  });
});

describe('scope inference on hostile text', () => {
  it('never names a file outside the repository, whatever the paths say', () => {
    const body = [
      'at x (../../etc/passwd:1:1)',
      'at y (/etc/shadow:2:2)',
      'file:///C:/Windows/System32/drivers/etc/hosts.ts:1:1',
      '..\\..\\..\\secrets.ts:3:4',
      '~/.ssh/id_rsa.ts',
      '\\\\server\\share\\x.ts:1:1',
      'packages/../../../../etc/passwd.json',
    ].join('\n');
    const found = infer('Crash', body);
    for (const c of found) expect(index.files).toContain(c.path);
  });

  it('stays bounded on huge bodies, pathological identifiers and control characters', () => {
    const huge = `${'aB'.repeat(200_000)} ${'`x`'.repeat(50_000)}\n${'"'.repeat(100_000)}\n${'at '.repeat(30_000)}${'/a'.repeat(50_000)}.ts:1:1\n`;
    const control = 'applyTheme\u0000\u0007\u001b[31m`applyTheme`\u202e';
    for (const body of [huge, control, '\u0000'.repeat(70_000), 'x\n'.repeat(100_000)]) {
      const found = infer('\u0000fix(\u0000): `\u0000`', body);
      for (const c of found) {
        expect(index.files).toContain(c.path);
        for (const e of c.evidence) expect(e.text.length).toBeLessThanOrEqual(120);
      }
    }
    expect(top(infer('Theme', control)).path).toBe('packages/web/src/styles/theme.ts');
  });
});
