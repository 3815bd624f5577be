import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import express from 'express';
import { pgInbox } from '../src/inbox-pg.js';
import { createWebhookReceiver } from '../src/index.js';
import { toNodeHandler } from '../src/node.js';
import { AUTH_KEY } from './fixtures.js';
import { ACTIVATE, benchPool } from './inbox-db.js';

const PATH = '/webhooks/kyc';
// As many connections as autocannon keeps in flight (inbox.ts), so neither line queues on its pool.
const POOL_SIZE = 16;

/**
 * `inbox-receiver`: the receiver in inbox mode (pgInbox) behind node:http, the handler one UPDATE
 * in `context.tx`. `inbox-express`: Express with the recipe every guide hand-writes (BEGIN; INSERT
 * key ON CONFLICT DO NOTHING; UPDATE if inserted; COMMIT), bearer check and JSON.parse included.
 */
export function inboxServer(kind: string): Server {
  const pool = benchPool(POOL_SIZE);
  if (kind === 'inbox-receiver') {
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      inbox: pgInbox(pool),
      logger: {},
      async onEvent(event, { tx }) {
        await tx.query(ACTIVATE, ['active', event.sessionId]);
      },
    });
    return createServer(toNodeHandler(receiver));
  }
  if (kind !== 'inbox-express') throw new Error(`unknown inbox server kind ${kind}`);
  const expected = Buffer.from(`Bearer ${AUTH_KEY}`);
  const app = express();
  app.post(PATH, express.raw({ type: 'application/json' }), async (request, response) => {
    const given = Buffer.from(request.get('authorization') ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      response.status(401).end();
      return;
    }
    const event = JSON.parse((request.body as Buffer).toString('utf8')) as { sessionId: string; timestamp: string };
    const key = request.get('webhook-id') ?? `${event.sessionId}:${event.timestamp}`;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const inserted = await client.query('INSERT INTO recipe_inbox (key) VALUES ($1) ON CONFLICT DO NOTHING', [key]);
      if (inserted.rowCount === 1) await client.query(ACTIVATE, ['active', event.sessionId]);
      await client.query('COMMIT');
      response.json({ received: true });
    } catch {
      await client.query('ROLLBACK').catch(() => undefined);
      response.status(500).end();
    } finally {
      client.release();
    }
  });
  return createServer(app);
}
