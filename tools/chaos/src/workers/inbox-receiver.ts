/**
 * A receiver in inbox mode for the `inbox` chaos scenario, over Postgres (`pg`) or MariaDB
 * (`mysql2`). Its handler writes the event's effect row, then the account's status (naively,
 * no ordering of its own: the inbox must keep a late PENDING from downgrading it). It kills
 * itself now and then at the moments a plain kill rarely hits: before the handler, between its
 * two writes, and between the commit and the answer; it prints `kill <moment>` first (a pipe
 * write is synchronous on Linux, so the line is out before the signal). Prints `ready`.
 */
import { createServer } from 'node:http';
import { createWebhookReceiver } from '@kyc/webhook-receiver';
import { mysql2Inbox } from '@kyc/webhook-receiver/inbox/mysql2';
import { pgInbox } from '@kyc/webhook-receiver/inbox/pg';
import { toNodeHandler } from '@kyc/webhook-receiver/node';
import mysql from 'mysql2/promise';
import pg from 'pg';

const config = JSON.parse(process.env.KYC_CHAOS ?? '{}') as {
  dialect: 'postgres' | 'mysql';
  url: string;
  port: number;
  authKey: string;
  table: string;
  /** Probability of a self-kill before a request (every request), and inside or after a handler (the few that run). */
  kill: { before: number; inside: number; afterCommit: number };
};
const say = (line: string) => process.stdout.write(`${line}\n`);
const die = (moment: string): never => {
  say(`kill ${moment}`);
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};
const effects = `${config.table}_effects`;
const accounts = `${config.table}_accounts`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Write = (sql: string, params: unknown[]) => Promise<unknown>;
const onEvent = async (
  event: { idempotencyKey: string; sessionId: string; status?: string | undefined },
  write: Write,
) => {
  const pgSql = config.dialect === 'postgres';
  await write(
    pgSql
      ? `INSERT INTO ${effects} (event_key, session_id, status) VALUES ($1, $2, $3)`
      : `INSERT INTO ${effects} (event_key, session_id, status) VALUES (?, ?, ?)`,
    [event.idempotencyKey, event.sessionId, event.status ?? null],
  );
  if (Math.random() < config.kill.inside) die('inside');
  await pause(Math.floor(Math.random() * 4));
  await write(
    pgSql
      ? `INSERT INTO ${accounts} (session_id, status) VALUES ($1, $2) ON CONFLICT (session_id) DO UPDATE SET status = EXCLUDED.status`
      : `INSERT INTO ${accounts} (session_id, status) VALUES (?, ?) ON DUPLICATE KEY UPDATE status = VALUES(status)`,
    [event.sessionId, event.status ?? null],
  );
};

const common = { authKeys: config.authKey, logger: {}, handlerTimeoutMs: 5000 };
const receiver =
  config.dialect === 'postgres'
    ? createWebhookReceiver({
        ...common,
        inbox: pgInbox(new pg.Pool({ connectionString: config.url, max: 8 }), { table: config.table }),
        onEvent: (event, { tx }) => onEvent(event, (sql, params) => tx.query(sql, params)),
      })
    : createWebhookReceiver({
        ...common,
        inbox: mysql2Inbox(mysql.createPool({ uri: config.url, connectionLimit: 8 }), { table: config.table }),
        onEvent: (event, { tx }) => onEvent(event, (sql, params) => tx.query(sql, params)),
      });

const handler = toNodeHandler({
  handle: (request) => receiver.handle(request),
  async receive(input) {
    if (Math.random() < config.kill.before) die('before');
    const answer = await receiver.receive(input);
    // Committed, not yet answered: the sender sees a reset and sends again.
    if (answer.outcome === 'processed' && Math.random() < config.kill.afterCommit) die('after-commit');
    return answer;
  },
});
const server = createServer(handler);
server.listen(config.port, '127.0.0.1', () => say('ready'));
