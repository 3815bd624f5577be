import { createOwnTransport, type OwnTransport } from '../transport/own-transport.js';
import type { TransportOptions } from '../transport/types.js';
import type { DeliveryEngineOptions } from './options.js';
import type { SendFunction } from './run-attempt.js';
import { selectingSend } from './select-transport.js';

/** The engine's handle on the transport: one send function and a close for stop(). */
export interface Sender {
  readonly send: SendFunction;
  /** Closes the connection pools; a later send opens fresh ones (the engine may be started again). */
  close(): Promise<void>;
}

/**
 * Binds the engine's network options (resolver, TLS trust, allowlist, proxy, deadline) to one
 * reusable transport, so connections to an endpoint are kept alive across attempts. Creating
 * it up front makes a bad CA, allowlist or proxy fail at `createDeliveryEngine`.
 */
export function createSender<T>(options: DeliveryEngineOptions<T>, deadlineMs: number): Sender {
  const base: TransportOptions = {
    deadlineMs,
    ...(options.resolver !== undefined && { resolver: options.resolver }),
    ...(options.allowPrivateNetworks !== undefined && { allowPrivateNetworks: options.allowPrivateNetworks }),
    ...(options.tls !== undefined && { tls: options.tls }),
    ...(options.proxy !== undefined && { proxy: options.proxy }),
  };
  let transport: OwnTransport = createOwnTransport(base);
  const own: SendFunction = (request, signal) => transport.send(request, signal);
  const { selectTransport, logger } = options;
  return {
    send:
      selectTransport === undefined
        ? own
        : selectingSend(own, selectTransport, deadlineMs, (message, fields) => logger?.warn?.(message, fields)),
    async close() {
      const old = transport;
      transport = createOwnTransport(base);
      await old.close();
    },
  };
}
