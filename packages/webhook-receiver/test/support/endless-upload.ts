import { connect } from 'node:net';

/**
 * Opens a raw socket and POSTs an authorised, chunked body that never ends (bounded at 256 MiB),
 * as fast as the server takes it, until the server answers and closes. Resolves to the raw
 * response text and how many bytes the client managed to push.
 */
export function endlessChunkedUpload(
  baseUrl: string,
  authorization: string,
  path = '/webhooks/kyc',
): Promise<{ response: string; pushed: number }> {
  const { hostname, port } = new URL(baseUrl);
  const size = 64 * 1024;
  const chunk = `${size.toString(16)}\r\n${' '.repeat(size)}\r\n`;
  let pushed = 0;
  return new Promise((resolve) => {
    let response = '';
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: ${authorization}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      const pump = () => {
        while (!socket.destroyed && pushed < 256 * 1024 * 1024) {
          pushed += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    socket.on('data', (data) => {
      response += String(data);
    });
    socket.on('error', () => undefined); // EPIPE / ECONNRESET once the server closed: expected
    socket.on('close', () => resolve({ response, pushed }));
  });
}
