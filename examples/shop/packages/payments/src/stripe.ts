import type { Money } from '@shop/core';

export async function charge(token: string, amount: Money): Promise<string> {
  return `ch_${token}_${amount.cents}`;
}
