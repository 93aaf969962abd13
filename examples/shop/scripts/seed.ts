import { createCart } from '@shop/core';

export const demoCart = createCart('demo');
