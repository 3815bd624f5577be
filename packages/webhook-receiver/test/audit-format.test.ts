import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sampleStatusWebhook } from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import { type AuditEntry, type AuditRecord, auditTrail, chainAuditRecords, verifyAuditLog } from '../src/audit.js';
import { jsonlAuditSink, nodeSha256, verifyAuditFiles } from '../src/audit-file.js';
import { createWebhookReceiver } from '../src/index.js';
import { createTestRequest } from '../src/testing.js';
import { auditDirectories, linesOf } from './support/audit-directories.js';
import { verifyAsReleasedBefore } from './support/audit-format-v1.js';
import { AUTH_KEY } from './support/receiver-table.js';

// Written by the audit trail as released before issue 21 (see write-fixture.ts next to it):
// 14 entries, every outcome, a signed delivery, labels, bodies kept as text and as base64.
const FIXTURE_DIRECTORY = new URL('./fixtures/audit-v1/', import.meta.url).pathname;
const FIXTURE = 'webhook-audit-000000000001-20261125.jsonl';

const freshDirectory = auditDirectories('kyc-audit-format-');

const fixtureLines = async () => (await readFile(join(FIXTURE_DIRECTORY, FIXTURE), 'utf8')).trimEnd().split('\n');

/** The record an entry was made from: the entry without the chain's own fields. */
function recordOf(line: string): AuditRecord {
  const { v: _v, seq: _seq, prevHash: _prevHash, hash: _hash, ...record } = JSON.parse(line) as AuditEntry;
  return record;
}

describe('the audit chain format is the one released before issue 21', () => {
  it('a log written by the earlier release verifies with this one', async () => {
    const lines = await fixtureLines();
    expect(lines).toHaveLength(14);
    expect(await verifyAuditLog(lines, { sha256: nodeSha256 })).toMatchObject({ ok: true, count: 14 });
    expect(await verifyAuditFiles([FIXTURE_DIRECTORY])).toMatchObject({ ok: true, count: 14 });
  });

  it('the same records chain into the very same entries (hashes, values, escapes)', async () => {
    const lines = await fixtureLines();
    const directory = await freshDirectory();
    const sink = jsonlAuditSink({ directory, now: () => Date.UTC(2026, 10, 25, 10) });
    for (const line of lines) await sink.append(recordOf(line));
    await sink.close();
    const written = await linesOf(directory);
    expect(written.map((line) => JSON.parse(line))).toEqual(lines.map((line) => JSON.parse(line)));
    // And through the public chaining function, with Web Crypto.
    const entries = await chainAuditRecords(undefined, lines.map(recordOf));
    expect(entries).toEqual(lines.map((line) => JSON.parse(line)));
  });

  it('a line this release writes is the canonical text its hash covers, with the hash appended', async () => {
    const lines = await fixtureLines();
    const directory = await freshDirectory();
    const sink = jsonlAuditSink({ directory, now: () => Date.UTC(2026, 10, 25, 10) });
    for (const line of lines) await sink.append(recordOf(line));
    await sink.close();
    for (const line of await linesOf(directory)) {
      const { hash } = JSON.parse(line) as AuditEntry;
      const suffix = `,"hash":"${hash}"}`;
      expect(line.endsWith(suffix)).toBe(true);
      // An auditor checks a line with sha256 alone: no canonical JSON library needed.
      expect(nodeSha256(new TextEncoder().encode(`${line.slice(0, -suffix.length)}}`))).toBe(hash);
    }
  });

  it('this release continues a log of the earlier one, and the whole log verifies with both', async () => {
    const directory = await freshDirectory();
    await copyFile(join(FIXTURE_DIRECTORY, FIXTURE), join(directory, FIXTURE));
    const sink = jsonlAuditSink({ directory, now: () => Date.UTC(2026, 10, 25, 12) });
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      onEvent: () => undefined,
      logger: {},
      audit: auditTrail({ sink, includeBody: true, authKeyLabels: ['2026-q4'] }),
    });
    const answers: number[] = [];
    for (const webhookId of ['evt_after_1', 'evt_after_2', 'evt_after_2', 'evt_"after"\\3']) {
      const request = createTestRequest({ payload: sampleStatusWebhook, authKey: AUTH_KEY, webhookId });
      answers.push((await receiver.handle(request)).status);
    }
    await sink.close();
    expect(answers).toEqual([200, 200, 200, 200]);
    const lines = await linesOf(directory);
    expect(lines).toHaveLength(18);
    expect((JSON.parse(lines[14] as string) as AuditEntry).seq).toBe(15);
    expect(await verifyAuditFiles([directory])).toMatchObject({ ok: true, count: 18 });
    expect(verifyAsReleasedBefore(lines)).toBe('ok');
  });

  it('a log written by this release alone verifies as the earlier release checked it', async () => {
    const directory = await freshDirectory();
    const sink = jsonlAuditSink({ directory });
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      onEvent: () => undefined,
      logger: {},
      audit: auditTrail({ sink }),
    });
    for (const webhookId of ['evt_new_1', 'evt_new_1', 'evt_new_2']) {
      await receiver.handle(createTestRequest({ payload: sampleStatusWebhook, authKey: AUTH_KEY, webhookId }));
    }
    await receiver.handle(createTestRequest({ payload: '{', authKey: AUTH_KEY, webhookId: 'evt_new_3' }));
    await sink.close();
    const lines = await linesOf(directory);
    expect(lines).toHaveLength(4);
    expect(verifyAsReleasedBefore(lines)).toBe('ok');
    // The frozen check is a real one: an edited entry fails it.
    const edited = [...lines];
    edited[1] = (edited[1] as string).replace('"duplicate"', '"processed"');
    expect(verifyAsReleasedBefore(edited)).toBe('line 2: hash_mismatch');
  });
});
