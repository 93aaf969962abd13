export { charge } from './stripe.js';
export { refund } from './refunds.js';
