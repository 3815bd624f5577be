/**
 * Mount a receiver on `node:http`, Express or Connect.
 *
 * @packageDocumentation
 */
export { type NodeWebhookHandler, toNodeHandler } from './adapters/node/index.js';
export type { ParsedBodyHolder } from './adapters/node/read-body.js';
