import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { HEADERS } from '@kyc/contracts';
import type { TestCertificate } from '@kyc/test-support';

/** The text every answer of the server carries: a NUL byte, as a crashing framework might print. */
export const NUL_BODY = 'internal error\u0000 at frame 0x0';

/** One request the NUL endpoint received. */
export interface NulReceipt {
  readonly id: string;
  readonly attempt: number;
  readonly at: number;
}

/**
 * A company's endpoint that answers every delivery 500 with a U+0000 in its body, on 127.0.0.1
 * (its own origin, so its own company in the engine's eyes). Postgres refuses that character
 * in text and JSON: what the engine must keep away from the statements that record other
 * companies' results.
 */
export async function startNulAnswerServer(
  certificate: TestCertificate,
): Promise<{ url: string; receipts: NulReceipt[]; close(): Promise<void> }> {
  const receipts: NulReceipt[] = [];
  const server = createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    receipts.push({
      id: String(req.headers[HEADERS.webhookId]),
      attempt: Number(req.headers[HEADERS.webhookAttempt]),
      at: Date.now(),
    });
    req.resume();
    req.once('end', () => res.writeHead(500, { 'content-type': 'text/plain' }).end(NUL_BODY));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    receipts,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
}
