import { getCart } from './routes/cart.js';
import { checkout } from './routes/checkout.js';

export const routes = { 'GET /cart/:id': getCart, 'POST /checkout': checkout };
