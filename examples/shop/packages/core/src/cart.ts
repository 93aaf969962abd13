import { add } from './money.js';
import type { LineItem, Money } from './types.js';

export interface Cart { id: string; items: LineItem[] }

export function createCart(id: string): Cart {
  return { id, items: [] };
}

export function total(cart: Cart): Money {
  return cart.items.reduce<Money>((sum, item) => add(sum, { ...item.price, cents: item.price.cents * item.quantity }), { cents: 0, currency: 'EUR' });
}
