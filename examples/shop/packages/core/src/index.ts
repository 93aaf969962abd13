export * from './cart.js';
export * from './money.js';
export * from './discounts.js';
export type * from './types.js';
