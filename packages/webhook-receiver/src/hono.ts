/**
 * Mount a receiver on Hono (4), on any runtime.
 *
 * @packageDocumentation
 */
export { type HonoLikeContext, type HonoWebhookHandler, toHonoHandler } from './adapters/hono.js';
