/**
 * Mount a receiver on Koa (2 or 3).
 *
 * @packageDocumentation
 */
export { type KoaLikeContext, type KoaWebhookMiddleware, toKoaMiddleware } from './adapters/koa.js';
