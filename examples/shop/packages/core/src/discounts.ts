import type { Money } from './types.js';

export function percentOff(m: Money, percent: number): Money {
  return { ...m, cents: Math.round((m.cents * (100 - percent)) / 100) };
}
