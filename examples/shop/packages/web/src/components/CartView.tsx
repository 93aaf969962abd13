import { format, total } from '@shop/core';
import { useCart } from '../hooks/useCart.js';

export function CartView({ id }: { id: string }) {
  const cart = useCart(id);
  return `<div>${cart.items.length} items, ${format(total(cart))}</div>`;
}
