/**
 * The sender a team would write in an afternoon instead of the engine (issue 20): one
 * better-sqlite3 file in WAL mode, a job row per event, undici POSTs with 16 in flight, and one
 * transaction per delivery that records its result and an attempt row. Nothing more (no SSRF
 * checks, no deadline covering the whole exchange, no retry schedule beyond "pending"), so it is
 * a floor the engine must beat, not a rival.
 */

import { HEADERS, WEBHOOK_USER_AGENT } from '@kyc/contracts';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';

export interface HandWrittenOptions {
  readonly path: string;
  /** `NORMAL` survives a process crash, `FULL` a power loss too (one fsync per delivery). */
  readonly synchronous: 'NORMAL' | 'FULL';
  readonly ca: string;
  readonly concurrency: number;
}

export interface HandWrittenSender {
  /** Stores one job in its own transaction, as a request handler would. */
  enqueue(id: string, url: string, body: string): void;
  /** Sends every pending job, 16 at a time; resolves when each has a recorded result. */
  deliverAll(): Promise<number>;
  close(): Promise<void>;
}

interface Job {
  readonly id: string;
  readonly url: string;
  readonly body: string;
}

export function handWrittenSender(options: HandWrittenOptions): HandWrittenSender {
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous}`);
  db.exec(`CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, url TEXT NOT NULL, body TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, finished_at INTEGER)`);
  db.exec(`CREATE TABLE IF NOT EXISTS attempts (
    job_id TEXT NOT NULL, attempt INTEGER NOT NULL, status INTEGER, error TEXT, latency_ms INTEGER NOT NULL,
    at INTEGER NOT NULL, PRIMARY KEY (job_id, attempt))`);
  const insert = db.prepare('INSERT INTO jobs (id, url, body, created_at) VALUES (?, ?, ?, ?)');
  const pending = db.prepare("SELECT id, url, body FROM jobs WHERE state = 'pending' ORDER BY created_at LIMIT 1000");
  const finish = db.prepare('UPDATE jobs SET state = ?, attempts = attempts + 1, finished_at = ? WHERE id = ?');
  const logAttempt = db.prepare('INSERT INTO attempts VALUES (?, ?, ?, ?, ?, ?)');
  const record = db.transaction((job: Job, status: number | undefined, error: string | undefined, ms: number) => {
    const now = Date.now();
    finish.run(status === 200 ? 'delivered' : 'pending', now, job.id);
    logAttempt.run(job.id, 1, status ?? null, error ?? null, ms, now);
  });
  const agent = new Agent({ connect: { ca: options.ca }, connections: options.concurrency });

  async function post(job: Job): Promise<void> {
    const started = performance.now();
    try {
      const response = await request(job.url, {
        method: 'POST',
        body: job.body,
        dispatcher: agent,
        headers: {
          [HEADERS.contentType]: 'application/json',
          [HEADERS.userAgent]: WEBHOOK_USER_AGENT,
          [HEADERS.webhookId]: job.id,
        },
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      await response.body.dump();
      record(job, response.statusCode, undefined, Math.round(performance.now() - started));
    } catch (error) {
      record(job, undefined, (error as Error).message, Math.round(performance.now() - started));
    }
  }

  return {
    enqueue: (id, url, body) => void insert.run(id, url, body, Date.now()),
    async deliverAll() {
      let delivered = 0;
      for (let jobs = pending.all() as Job[]; jobs.length > 0; jobs = pending.all() as Job[]) {
        let next = 0;
        await Promise.all(
          Array.from({ length: options.concurrency }, async () => {
            for (let job = jobs[next++]; job !== undefined; job = jobs[next++]) await post(job);
          }),
        );
        delivered += jobs.length;
      }
      return delivered;
    },
    async close() {
      await agent.close();
      db.close();
    },
  };
}
