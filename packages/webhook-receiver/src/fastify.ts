/**
 * Mount a receiver on Fastify (5).
 *
 * @packageDocumentation
 */
export { type KycWebhookPluginOptions, kycWebhookPlugin } from './adapters/fastify.js';
