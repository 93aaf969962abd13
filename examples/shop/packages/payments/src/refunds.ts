import { format, type Money } from '@shop/core';
import { charge } from './stripe.js';

export async function refund(chargeId: string, amount: Money): Promise<string> {
  await charge(`refund-${chargeId}`, { ...amount, cents: -amount.cents });
  return `refunded ${format(amount)}`;
}
