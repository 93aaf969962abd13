export { routes } from './server.js';
