/**
 * A worker of the previous release (before schema version 3) left running during a rolling
 * deploy, reduced to its delivery loop: it claims with that release's statement, sends each
 * claimed delivery to the receiver (from its own loopback address, so receipts tell it apart)
 * and records the result with that release's statement. Prints `started`, `took <id>` per
 * delivery it claimed, and `refused <sqlstate>` per claim the database refused. Configured by
 * `KYC_CHAOS` (JSON); killed by the parent.
 */
import { request } from 'node:https';
import { HEADERS } from '@kyc/contracts';
import pg from 'pg';
import { PREVIOUS_RELEASE_CLAIM, PREVIOUS_RELEASE_COMPLETE } from '../support/previous-release.js';

interface Config {
  readonly postgresUrl: string;
  readonly ca: string;
  readonly host: string;
  readonly port: number;
  readonly address: string;
  readonly authKey: string;
  readonly leaseMs: number;
  readonly timeScale: { readonly factor: number; readonly anchor: number };
}

const config = JSON.parse(process.env.KYC_CHAOS ?? '{}') as Config;
const say = (line: string) => process.stdout.write(`${line}\n`);
const pool = new pg.Pool({ connectionString: config.postgresUrl, max: 2 });
pool.on('error', () => undefined);
const now = () => config.timeScale.anchor + (Date.now() - config.timeScale.anchor) * config.timeScale.factor;

/** One POST as that release sent it (the headers the receiver counts by); resolves with the status. */
function send(row: Record<string, unknown>, attempt: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: config.address,
        servername: config.host,
        port: config.port,
        path: '/hook',
        method: 'POST',
        ca: config.ca,
        localAddress: config.address,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${String(row.auth_key)}`,
          [HEADERS.webhookId]: String(row.id),
          [HEADERS.webhookAttempt]: String(attempt),
        },
        timeout: 1000,
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.once('error', () => resolve(0));
    req.once('timeout', () => req.destroy());
    req.end(String(row.body));
  });
}

say('started');
for (;;) {
  const at = now();
  let rows: Record<string, unknown>[] = [];
  try {
    rows = (await pool.query(PREVIOUS_RELEASE_CLAIM, [at, at + config.leaseMs, 8, [], 8, [], []])).rows;
  } catch (error) {
    say(`refused ${String((error as { code?: unknown }).code)}`);
  }
  await Promise.all(
    rows.map(async (row) => {
      say(`took ${String(row.id)}`);
      const attempt = Number(row.attempts) + 1;
      const started = now();
      const status = await send(row, attempt);
      const delivered = status === 200;
      const finished = now();
      await pool
        .query(PREVIOUS_RELEASE_COMPLETE, [
          [row.id],
          [row.lease_token],
          [delivered ? 'delivered' : 'pending'],
          [delivered ? null : finished + 60_000],
          [delivered ? finished : null],
          [attempt],
          [row.round],
          [started],
          ['{}'],
          [status === 0 ? null : status],
          [delivered ? 'delivered' : 'server_error'],
          [config.address],
          [Math.round((finished - started) / config.timeScale.factor)],
          [null],
          [null],
        ])
        .catch(() => undefined);
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
}
