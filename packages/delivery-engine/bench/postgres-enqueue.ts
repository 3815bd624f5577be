/**
 * What an `enqueue` costs on Postgres, apart from the delivery (the Postgres line commits its
 * batch in one transaction before the clock starts, so neither figure holds it): 16 callers at
 * once, each `enqueue` its own transaction, as a service's requests would send them. CPU µs per
 * enqueue of the enqueuing process and of Postgres (every server process, from /proc).
 */

import { createDeliveryEngine } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import { POSTGRES_URL, postgresCpuUs } from '@kyc/test-support';
import pg from 'pg';
import { median, range } from './stats.js';

const CALLERS = 16;
const WARM_UP = 1000;

export async function postgresEnqueueSection(options: {
  readonly url: string;
  readonly body: string;
  readonly events: number;
  readonly rounds: number;
}): Promise<void> {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: CALLERS });
  const schema = `kyc_de_enqueue_${process.pid}_${Date.now()}`;
  const store = postgresDeliveryStore({ pool, schema });
  // Never started: the rows wait, so only the enqueues are measured.
  const engine = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
  const enqueueMany = async (count: number) => {
    let next = 0;
    const caller = async () => {
      while (next++ < count) await engine.enqueue({ url: options.url, body: options.body });
    };
    await Promise.all(Array.from({ length: CALLERS }, caller));
  };
  try {
    await store.migrate();
    await enqueueMany(WARM_UP);
    const client: number[] = [];
    const server: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const [cpuBefore, postgresBefore] = [process.cpuUsage(), postgresCpuUs()];
      await enqueueMany(options.events);
      const used = process.cpuUsage(cpuBefore);
      client.push((used.user + used.system) / options.events);
      server.push((postgresCpuUs() - postgresBefore) / options.events);
    }
    console.log(
      `enqueue CPU, ${CALLERS} callers, a transaction each: enqueuing process ${median(client).toFixed(0)} µs ` +
        `[${range(client, 0)}], Postgres ${median(server).toFixed(0)} µs [${range(server, 0)}] (not in the figures above)`,
    );
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
}
