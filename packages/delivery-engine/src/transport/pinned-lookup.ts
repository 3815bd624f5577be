import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './types.js';

/**
 * A `lookup` for `net.connect`/`tls.connect` that ignores the name and answers with the one
 * address that was already vetted. The socket is opened by host name, so TLS SNI and
 * certificate checks use the name, yet no second DNS query can swap the address (rebinding).
 *
 * @example
 * ```ts
 * tls.connect({ host: 'hooks.example.com', port: 443, lookup: pinnedLookup({ address: '93.184.216.34', family: 4 }) });
 * ```
 */
export function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    // Node asks for every address (`all: true`) when it may race families (autoSelectFamily).
    if (typeof options === 'object' && options !== null && options.all === true) {
      (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, [pinned]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
}
