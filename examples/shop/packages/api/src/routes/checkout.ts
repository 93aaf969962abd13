import { total, type Cart } from '@shop/core';
import { charge } from '@shop/payments';

export async function checkout(cart: Cart, token: string) {
  return charge(token, total(cart));
}
