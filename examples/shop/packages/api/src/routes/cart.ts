import { createCart, total } from '@shop/core';

export function getCart(id: string) {
  const cart = createCart(id);
  return { cart, total: total(cart) };
}
