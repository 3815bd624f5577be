import type { DeliveryClaim } from './store.js';

/**
 * Where a store may leave a claim's body as the UTF-8 bytes it read. Decoding a 1 KB body into
 * a string, only for the transport to encode it again, was about a tenth of what the engine
 * spent per attempt above the HTTP exchange; the bytes are sent and signed as they are.
 */
export const BODY_BYTES: unique symbol = Symbol('kyc.delivery-engine.bodyBytes');

/** A claim that may carry its body as bytes beside (or instead of decoding) `body`. */
export interface ClaimWithBytes extends DeliveryClaim {
  readonly [BODY_BYTES]?: Uint8Array;
}

/** The body to send and sign: the bytes a store left, else the `body` string. */
export function bodyOf(claim: DeliveryClaim): string | Uint8Array {
  return (claim as ClaimWithBytes)[BODY_BYTES] ?? claim.body;
}
