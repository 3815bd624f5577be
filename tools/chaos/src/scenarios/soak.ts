import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { HEADERS } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import Database from 'better-sqlite3';
import pg from 'pg';
import { between } from '../support/between.js';
import { CHAOS_KEY } from '../support/chaos-receiver.js';
import { pause } from '../support/pause.js';
import { startPrivatePostgres } from '../support/private-postgres.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
import { spawnScript } from '../support/spawn-script.js';

interface Sample {
  at: number;
  rss: number;
  heap: number;
  handles: number;
  fds: number;
  acked: number;
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

export const soak: Scenario = {
  name: 'soak',
  title: 'Soak: steady deliveries on SQLite and Postgres with a slowly failing endpoint — memory, handles, descriptors',
  breaks: ['leak'],
  async run(context: RunContext) {
    const full = context.mode === 'full';
    const durationMs = full ? 30 * 60_000 : 20_000;
    const sampleMs = full ? 30_000 : 1000;
    const invariants = new Invariants();
    const certificate = await createTestCertificate(['127.0.0.1']);
    const seen = new Map<string, number>();
    // Two endpoints, two origins: a healthy one, and a customer whose endpoint answers 500 after 1–3 s.
    const endpoint = async (answer: (res: ServerResponse) => void) => {
      const server = createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
        const id = String(req.headers[HEADERS.webhookId]);
        seen.set(id, (seen.get(id) ?? 0) + 1);
        req.resume();
        req.once('end', () => answer(res));
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
    };
    const healthy = await endpoint((res) =>
      setTimeout(() => res.writeHead(200).end('ok'), between(Math.random, 5, 50)),
    );
    const failing = await endpoint((res) =>
      setTimeout(() => res.writeHead(500).end('failing'), between(Math.random, 1000, 3000)),
    );
    const postgres = await startPrivatePostgres(context.dir);
    const samples = { sqlite: [] as Sample[], postgres: [] as Sample[] };
    const stopped = new Map<string, number>();
    const workers = (['sqlite', 'postgres'] as const).map((store) =>
      spawnScript(
        'soak-worker',
        {
          store,
          path: join(context.dir, 'soak.db'),
          postgresUrl: postgres.url,
          ca: certificate.cert,
          authKey: CHAOS_KEY,
          urls: { ok: healthy.url, slowFail: failing.url },
          perSecond: 20,
          sampleMs,
          // 60× fast: every failing event goes through its four attempts within the soak.
          factor: 60,
          breakWith: context.breakWith,
        },
        (line) => {
          if (line.startsWith('sample ')) samples[store].push(JSON.parse(line.slice(7)) as Sample);
          if (line.startsWith('stopped ')) stopped.set(store, Number(line.slice(8)));
        },
        { nodeFlags: ['--expose-gc'] },
      ),
    );
    try {
      await Promise.all(workers.map((w) => w.waitFor('started')));
      const started = Date.now();
      while (Date.now() - started < durationMs) {
        await pause(Math.min(60_000, durationMs));
        if (full) context.progress(`soak: ${Math.round((Date.now() - started) / 60_000)} of 30 minutes`);
      }
      for (const worker of workers) {
        invariants.check(worker.child.exitCode === null, 'a soak worker died', () => worker.stderr().slice(-500));
        worker.kill('SIGTERM');
        await worker.exited;
      }
    } finally {
      for (const worker of workers) worker.kill('SIGKILL');
    }
    const figures: [string, string | number][] = [['duration (min)', Math.round(durationMs / 6000) / 10]];
    for (const store of ['sqlite', 'postgres'] as const) {
      const list = samples[store];
      // Flat means: the last quarter of the samples is where the second quarter was (the first
      // quarter is warm-up: pools fill, code is compiled, the retry backlog builds up).
      const quarter = Math.max(1, Math.floor(list.length / 4));
      const early = list.slice(quarter, 2 * quarter);
      const late = list.slice(-quarter);
      const growth = (pick: (s: Sample) => number) => mean(late.map(pick)) - mean(early.map(pick));
      invariants.check(list.length >= 8, `${store}: too few samples`, () => `${list.length}`);
      invariants.check(
        growth((s) => s.heap) < 16 * 2 ** 20,
        `${store}: live heap grew`,
        () => `${mb(growth((s) => s.heap))} MB`,
      );
      invariants.check(growth((s) => s.fds) < 10, `${store}: file descriptors grew`, () => `${growth((s) => s.fds)}`);
      invariants.check(
        growth((s) => s.handles) < 10,
        `${store}: active handles grew`,
        () => `${growth((s) => s.handles)}`,
      );
      const step = Math.max(1, Math.floor(list.length / 12));
      const curve = list.filter((_, i) => i % step === 0);
      figures.push(
        [`${store}: events enqueued`, list.at(-1)?.acked ?? 0],
        [`${store}: RSS curve (MB)`, curve.map((s) => mb(s.rss)).join(' ')],
        [`${store}: live heap curve (MB)`, curve.map((s) => mb(s.heap)).join(' ')],
        [`${store}: active handles curve`, curve.map((s) => s.handles).join(' ')],
        [`${store}: open file descriptors curve`, curve.map((s) => s.fds).join(' ')],
      );
    }
    // Every event enqueued by the end was stored: count it in each store.
    const db = new Database(join(context.dir, 'soak.db'));
    const states = (rows: { state: string; n: number }[]) => rows.map((r) => `${r.state}: ${r.n}`).join(', ');
    const sqliteStates = db
      .prepare('SELECT state, count(*) AS n FROM deliveries GROUP BY state ORDER BY state')
      .all() as {
      state: string;
      n: number;
    }[];
    const sqliteCount = sqliteStates.reduce((sum, r) => sum + r.n, 0);
    db.close();
    const pool = new pg.Pool({ connectionString: postgres.url, max: 1 });
    const pgStates = (
      await pool.query('SELECT state, count(*)::int AS n FROM deliveries GROUP BY state ORDER BY state')
    ).rows as { state: string; n: number }[];
    const pgCount = pgStates.reduce((sum, r) => sum + r.n, 0);
    await pool.end();
    invariants.check(
      sqliteCount >= (stopped.get('sqlite') ?? 0),
      'sqlite: an acknowledged event is missing',
      () => `${sqliteCount}`,
    );
    invariants.check(
      pgCount >= (stopped.get('postgres') ?? 0),
      'postgres: an acknowledged event is missing',
      () => `${pgCount}`,
    );
    figures.push(['sqlite: deliveries by state at the end', states(sqliteStates)]);
    figures.push(['postgres: deliveries by state at the end', states(pgStates)]);
    figures.push(['requests the endpoints saw', [...seen.values()].reduce((a, b) => a + b, 0)]);
    for (const { server } of [healthy, failing]) {
      server.closeAllConnections();
      server.close();
    }
    postgres.destroy();
    return { figures, failures: invariants.failures };
  },
};
