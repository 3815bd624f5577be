import { hash } from 'node:crypto';
import { SHA256_OF_TEXT } from './hash-audit-entry.js';

/**
 * SHA-256 with `node:crypto`: synchronous, and on Node about 20 times cheaper per call than
 * Web Crypto's `subtle.digest` (a thread-pool round trip). Same digests. Node (and Bun, Deno) only.
 */
export function nodeSha256(bytes: Uint8Array): string {
  // One-shot: a third cheaper than a Hash object per call (createHash).
  return hash('sha256', bytes, 'hex');
}

// The audit sinks hash an entry's canonical text through this, without encoding it first
// (TextEncoder took longer than the hash itself).
(nodeSha256 as typeof nodeSha256 & { [SHA256_OF_TEXT]?: (text: string) => string })[SHA256_OF_TEXT] = (text) =>
  hash('sha256', text, 'hex');
