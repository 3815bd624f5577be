import { sampleStatusWebhook } from '@kyc/contracts';
import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import { type DataPoint, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, auditTrail, callbackAuditSink } from '../src/audit.js';
import { migrateInbox } from '../src/inbox.js';
import { pgInbox } from '../src/inbox-pg.js';
import { createWebhookReceiver } from '../src/index.js';
import { createTestRequest } from '../src/testing.js';

class OnDemandReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const KEY = 'kyc_inbox_observed_key_0123';
const table = `kyc_inbox_observed_${process.pid}`;

describe.skipIf(!(await postgresAvailable()))('the inbox seen by the audit trail and telemetry (real Postgres)', () => {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 5 });
  const spans = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  beforeAll(() => migrateInbox(pgInbox(pool, { table })));
  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_sessions`);
    await pool.end();
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });

  it('records per delivery whether the effect committed or rolled back, and counts duplicates and stale results', async () => {
    const entries: AuditEntry[] = [];
    let fail = false;
    const receiver = createWebhookReceiver({
      authKeys: KEY,
      inbox: pgInbox(pool, { table }),
      logger: {},
      audit: auditTrail({ sink: callbackAuditSink((batch) => void entries.push(...batch)) }),
      telemetry: { tracerProvider, meterProvider },
      onEvent: () => {
        if (fail) throw new Error('refused');
      },
    });
    const sessionId = `sess_observed_${process.pid}`;
    const send = (status: string, timestamp: string, webhookId: string) =>
      receiver.handle(
        createTestRequest({
          payload: { ...sampleStatusWebhook, sessionId, status, timestamp },
          authKey: KEY,
          webhookId,
        }),
      );
    await send('APPROVED', '2026-11-21T12:00:00.000Z', 'evt_a');
    await send('APPROVED', '2026-11-21T12:00:00.000Z', 'evt_a');
    await send('PENDING', '2026-11-21T10:00:00.000Z', 'evt_p');
    fail = true;
    await send('REJECTED', '2026-11-21T13:00:00.000Z', 'evt_r');

    expect(entries.map((e) => [e.outcome, e.inbox])).toEqual([
      ['processed', 'committed'],
      ['duplicate', 'duplicate'],
      ['stale', 'stale_skipped'],
      ['handler_error', 'rolled_back'],
    ]);
    expect(spans.getFinishedSpans().map((s) => s.attributes['kyc.webhook.inbox.result'])).toEqual([
      'committed',
      'duplicate',
      'stale_skipped',
      'rolled_back',
    ]);
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'kyc.webhook.inbox');
    const counts = Object.fromEntries(
      ((metric?.dataPoints ?? []) as DataPoint<number>[]).map((p) => [String(p.attributes.result), p.value]),
    );
    expect(counts).toEqual({ committed: 1, duplicate: 1, stale_skipped: 1, rolled_back: 1 });
  });
});
