import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Counts the bytes a server read from its sockets (live and closed), to prove it stopped reading. */
export function trackBytesRead(server: Server): () => number {
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => sockets.add(socket));
  return () => [...sockets].reduce((total, socket) => total + socket.bytesRead, 0);
}

/** Starts a server on a random loopback port; resolves to its base URL, a byte counter and a closer. */
export async function listen(
  server: Server,
): Promise<{ baseUrl: string; bytesRead: () => number; close: () => Promise<void> }> {
  const bytesRead = trackBytesRead(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    bytesRead,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
