import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sampleStatusWebhook } from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import { type AuditEntry, auditTrail } from '../src/audit.js';
import { jsonlAuditSink, listAuditFiles, verifyAuditFiles } from '../src/audit-file.js';
import { createWebhookReceiver } from '../src/index.js';
import { createTestRequest } from '../src/testing.js';
import { auditSinkConformance } from './support/audit-conformance.js';
import { auditDirectories, linesOf } from './support/audit-directories.js';
import { AUTH_KEY } from './support/receiver-table.js';

const freshDirectory = auditDirectories('kyc-audit-');
const entriesOf = async (directory: string) => (await linesOf(directory)).map((line) => JSON.parse(line) as AuditEntry);

auditSinkConformance('JSON Lines file sink', async () => {
  const directory = await freshDirectory();
  const sink = jsonlAuditSink({ directory });
  return { sink, read: () => entriesOf(directory), close: () => sink.close() };
});

// fsync 'none' writes on the event loop (writeSync), not through the thread pool: its own run.
auditSinkConformance("JSON Lines file sink, fsync 'none'", async () => {
  const directory = await freshDirectory();
  const sink = jsonlAuditSink({ directory, fsync: 'none' });
  return { sink, read: () => entriesOf(directory), close: () => sink.close() };
});

/** A receiver writing to `directory`; sends `count` processed deliveries with ids from `from`. */
async function deliver(sink: ReturnType<typeof jsonlAuditSink>, count: number, from = 0) {
  const receiver = createWebhookReceiver({
    authKeys: AUTH_KEY,
    onEvent: () => undefined,
    logger: {},
    audit: auditTrail({ sink }),
  });
  for (let index = from; index < from + count; index++) {
    const request = createTestRequest({ payload: sampleStatusWebhook, authKey: AUTH_KEY, webhookId: `evt_${index}` });
    expect((await receiver.handle(request)).status).toBe(200);
  }
}

describe('JSON Lines file sink: files, restarts and crashes', () => {
  it('rotates by size and by UTC day, each file continuing the chain', async () => {
    const directory = await freshDirectory();
    let now = Date.UTC(2026, 10, 25, 23, 59, 0);
    const sink = jsonlAuditSink({ directory, maxFileBytes: 4096, now: () => now });
    await deliver(sink, 8);
    now = Date.UTC(2026, 10, 26, 0, 0, 1);
    await deliver(sink, 2, 8);
    await sink.close();
    const files = await listAuditFiles(directory, 'webhook-audit');
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(files.at(-1)?.day).toBe('20261126');
    expect(files.every((file) => file.size <= 4096)).toBe(true);
    expect(await verifyAuditFiles([directory])).toMatchObject({ ok: true, count: 10 });
  });

  it('a restart continues the chain where the newest file ends', async () => {
    const directory = await freshDirectory();
    const first = jsonlAuditSink({ directory });
    await deliver(first, 3);
    await first.close();
    const second = jsonlAuditSink({ directory });
    await deliver(second, 2, 3);
    await second.close();
    expect((await entriesOf(directory)).map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(await verifyAuditFiles([directory])).toMatchObject({ ok: true });
  });

  it('a line half-written by a crash is cut off at restart (it was never acknowledged)', async () => {
    const directory = await freshDirectory();
    const first = jsonlAuditSink({ directory });
    await deliver(first, 3);
    await first.close();
    const [file] = await listAuditFiles(directory, 'webhook-audit');
    const path = join(directory, file?.name as string);
    await writeFile(path, '{"v":1,"seq":4,"receivedAt":"2026-11-', { flag: 'a' });
    const second = jsonlAuditSink({ directory, fsync: 'none' });
    await deliver(second, 1, 3);
    await second.close();
    expect((await entriesOf(directory)).map((entry) => entry.seq)).toEqual([1, 2, 3, 4]);
    expect(await verifyAuditFiles([directory])).toMatchObject({ ok: true });
  });

  it('a second live writer on the same directory is refused (fail-closed: 503)', async () => {
    const directory = await freshDirectory();
    const first = jsonlAuditSink({ directory });
    await deliver(first, 1);
    const second = jsonlAuditSink({ directory });
    const errors: string[] = [];
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      onEvent: () => undefined,
      logger: { error: (_message, fields) => errors.push(String(fields?.errorMessage)) },
      audit: auditTrail({ sink: second }),
    });
    const request = createTestRequest({ payload: sampleStatusWebhook, authKey: AUTH_KEY, webhookId: 'evt_second' });
    expect((await receiver.handle(request)).status).toBe(503);
    expect(errors[0]).toMatch(/written by process \d+; give each process its own directory/);
    await first.close();
    await second.close();
    expect(await readdir(directory)).not.toContain('webhook-audit.lock');
  });
});
