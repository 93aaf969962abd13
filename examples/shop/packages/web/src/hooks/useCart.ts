import { createCart, type Cart } from '@shop/core';

export function useCart(id: string): Cart {
  return createCart(id);
}
