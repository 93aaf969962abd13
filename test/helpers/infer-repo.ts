import { TempRepo } from './temp-repo.js';

/**
 * A small shop monorepo for scope inference: three workspace packages whose files declare names,
 * hold messages and import each other, and a short history of conventional commits.
 */
export const INFER_FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'shop', private: true, workspaces: ['packages/*'] }),
  'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
  'packages/web/package.json': JSON.stringify({ name: '@shop/web', main: 'src/index.ts' }),
  'packages/web/src/index.ts': "export { applyTheme } from './styles/theme';\nexport { CartView } from './cart/CartView';\n",
  'packages/web/src/styles/theme.ts': [
    "import { palette } from './palette';",
    'export interface ThemeOptions { dark: boolean }',
    'export function applyTheme(options: ThemeOptions): string {',
    '  if (!options) throw new Error("Theme options are required to apply a theme");',
    '  return palette(options.dark);',
    '}',
  ].join('\n'),
  'packages/web/src/styles/palette.ts': "export const palette = (dark: boolean) => (dark ? 'black' : 'white');\n",
  'packages/web/src/cart/CartView.tsx': "import { useCart } from './useCart';\nexport function CartView() { return useCart(); }\n",
  'packages/web/src/cart/useCart.ts': "import { cartTotal } from '@shop/core';\nexport function useCart() { return cartTotal([]); }\n",
  'packages/core/package.json': JSON.stringify({ name: '@shop/core', main: 'src/index.ts' }),
  'packages/core/src/index.ts': "export { cartTotal } from './money';\n",
  'packages/core/src/money.ts': [
    "import Decimal from 'decimal.js-light';",
    'export function cartTotal(lines: number[]): number {',
    '  return lines.reduce((sum, line) => sum + line, 0);',
    '}',
    'export class DiscountRule {',
    '  applyDiscount(total: number) { return new Decimal(total).toNumber(); }',
    '}',
  ].join('\n'),
  'packages/payments/package.json': JSON.stringify({ name: '@shop/payments', main: 'src/index.ts' }),
  'packages/payments/src/index.ts': "export { charge } from './stripe';\n",
  'packages/payments/src/stripe.ts': [
    "import { cartTotal } from '@shop/core';",
    'export async function charge(cart: number[]) {',
    '  if (cart.length === 0) throw new Error(`Cannot charge an empty cart for ${cart.length} items`);',
    "  throw new Error('Payment provider timed out after retries');",
    '  return cartTotal(cart);',
    '}',
  ].join('\n'),
  'packages/api/package.json': JSON.stringify({ name: '@shop/api', main: 'src/server.ts' }),
  'packages/api/src/server.ts': "import { checkout } from './routes/checkout';\nexport const server = { checkout };\n",
  'packages/api/src/routes/checkout.ts': "import { charge } from '@shop/payments';\nexport async function checkout(cart: number[]) { return charge(cart); }\n",
  'packages/api/src/routes/refunds.ts': 'export function refundOrder(id: string) { return id; }\n',
};

/** The shop on disk as a git repository, with a few past commits whose subjects name their areas. */
export async function inferRepo(): Promise<TempRepo> {
  const files = { ...INFER_FILES };
  const repo = await TempRepo.create(files);
  const commit = async (file: string, line: string, subject: string) => {
    files[file] = `${files[file]}\n// ${line}\n`;
    await repo.write({ [file]: files[file]! });
    await repo.git('add', '-A');
    await repo.git('-c', 'user.name=waves', '-c', 'user.email=waves@example.invalid', 'commit', '-q', '-m', subject);
  };
  await commit('packages/api/src/routes/refunds.ts', 'partial', 'feat(api): partial refunds of an order');
  await commit('packages/api/src/routes/refunds.ts', 'audit', 'fix(api): refunds keep an audit trail');
  await commit('packages/payments/src/stripe.ts', 'retry', 'fix(payments): retry the provider once');
  return repo;
}
