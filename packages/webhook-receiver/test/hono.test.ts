import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { sendOverHttp } from './support/fetch-send.js';
import { listen } from './support/listen.js';
import { receiverTableSuite } from './support/receiver-table.js';

receiverTableSuite('Hono on @hono/node-server + handle', async (receiver) => {
  const app = new Hono();
  app.all('/webhooks/kyc', (context) => receiver.handle(context.req.raw));
  const server = await listen(createAdaptorServer({ fetch: app.fetch }) as Server);
  return { send: (delivery) => sendOverHttp(server.baseUrl, delivery), close: server.close, wire: server };
});
