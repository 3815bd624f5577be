import { createHash } from 'node:crypto';

/**
 * SHA-256 with `node:crypto`: synchronous, and on Node about 20 times cheaper per call than
 * Web Crypto's `subtle.digest` (a thread-pool round trip). Same digests. Node (and Bun, Deno) only.
 */
export function nodeSha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
