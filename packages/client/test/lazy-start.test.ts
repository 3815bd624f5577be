import { once } from 'node:events';
import { createServer } from 'node:http';
import { registerHooks } from 'node:module';
import type { AddressInfo } from 'node:net';
import { sampleSessionDetails } from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import { KycClient } from '../src/index.js';

// Making a client must do no I/O (a module's top level on workerd may not): the optional
// `@opentelemetry/api` is looked for at the first call, not when the client is made.
const asked: string[] = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    // Vitest hands Node the path it resolved: match the package's folder, not the bare name.
    if (/@opentelemetry[\\/+]api/.test(specifier)) asked.push('@opentelemetry/api');
    return nextResolve(specifier, context);
  },
});

describe('a client looks for @opentelemetry/api on first use', () => {
  it('not when it is made, and once at the first call', async () => {
    const server = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ...sampleSessionDetails, id: 'sess_lazy_1' }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const client = new KycClient({ baseUrl, username: 'acme', password: 'lazy-start-pw-0c1d' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(asked).toEqual([]);
      expect((await client.getSession('sess_lazy_1')).id).toBe('sess_lazy_1');
      expect(asked).toEqual(['@opentelemetry/api']);
    } finally {
      server.close();
    }
  });
});
