export type Currency = 'EUR' | 'USD';
export interface Money { cents: number; currency: Currency }
export interface LineItem { sku: string; quantity: number; price: Money }
