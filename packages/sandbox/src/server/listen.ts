import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { SandboxError } from '../sandbox-error.js';

/** A listening Node server and how to close it. */
export interface Listening {
  readonly server: Server;
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves a fetch handler on `host:port`, over HTTPS when `tls` is given. A busy port or a
 * forbidden address becomes a {@link SandboxError} with the fix in its message.
 */
export function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  options: { port: number; host: string; tls?: { key: string; cert: string } | undefined },
): Promise<Listening> {
  // Keep Node's global Request/Response untouched: other code in the process (a receiver in the demo) uses them.
  const listener = getRequestListener(fetch, { overrideGlobalObjects: false });
  const server: Server = options.tls
    ? (createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, listener) as unknown as Server)
    : createHttpServer(listener);
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.close();
      if (error.code === 'EADDRINUSE') {
        reject(
          new SandboxError(
            'port_in_use',
            `port ${options.port} on ${options.host} is already in use; stop the other process or pick another --port`,
            { cause: error },
          ),
        );
      } else {
        reject(
          new SandboxError(
            'listen_failed',
            `cannot listen on ${options.host}:${options.port} (${error.code ?? error.message})`,
            { cause: error },
          ),
        );
      }
    };
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      const { port } = server.address() as AddressInfo;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      resolve({
        server,
        url: `${options.tls ? 'https' : 'http'}://${host}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
            // Bounded: connections still open after 5 s are cut.
            setTimeout(() => server.closeAllConnections(), 5000).unref();
          }),
      });
    });
  });
}
