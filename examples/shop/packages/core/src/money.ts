import type { Money } from './types.js';

export function add(a: Money, b: Money): Money {
  if (a.currency !== b.currency) throw new Error('currency mismatch');
  return { cents: a.cents + b.cents, currency: a.currency };
}

export function format(m: Money): string {
  return `${(m.cents / 100).toFixed(2)} ${m.currency}`;
}
