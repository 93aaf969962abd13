export { CartView } from './components/CartView.js';
export { Checkout } from './components/Checkout.js';
const lazyCheckout = () => import('./components/Checkout.js');
export { lazyCheckout };
