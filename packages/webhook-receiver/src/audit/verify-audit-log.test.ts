import { describe, expect, it } from 'vitest';
import { chainAuditRecords, GENESIS_HASH, hashAuditEntry } from './hash-audit-entry.js';
import type { AuditEntry, AuditRecord } from './types.js';
import { verifyAuditLog } from './verify-audit-log.js';

function record(index: number): AuditRecord {
  return {
    receivedAt: new Date(Date.UTC(2026, 10, 25, 10, 0, index)).toISOString(),
    outcome: 'processed',
    code: null,
    httpStatus: 200,
    webhookId: `evt_${index}`,
    webhookAttempt: '1',
    idempotencyKey: `id:evt_${index}`,
    sessionId: `sess-${index}`,
    kycStatus: index % 2 === 0 ? 'APPROVED' : 'REJECTED',
    eventTimestamp: null,
    bodySha256: 'ab'.repeat(32),
    bodyLength: 1200,
    signatureHeaders: { 'webhook-id': `evt_${index}`, 'webhook-timestamp': null, 'webhook-signature': null },
    signatureVerified: null,
    signingSecretIndex: null,
    signingSecretLabel: null,
    authKeyIndex: 0,
    authKeyLabel: null,
    durationMs: 1,
    handlerMs: 0,
  };
}

const entries = await chainAuditRecords(
  undefined,
  Array.from({ length: 10 }, (_, index) => record(index + 1)),
);
const lines = entries.map((entry) => JSON.stringify(entry));

describe('verifyAuditLog', () => {
  it('accepts an intact log, as entries or as JSON lines, and reports its head', async () => {
    const last = entries[9] as AuditEntry;
    expect(await verifyAuditLog(entries)).toEqual({ ok: true, count: 10, head: { seq: 10, hash: last.hash } });
    expect(await verifyAuditLog([...lines, ''])).toMatchObject({ ok: true, count: 10 });
    expect((entries[0] as AuditEntry).prevHash).toBe(GENESIS_HASH);
  });

  it('the hash does not depend on key order (a database json column may reorder keys)', async () => {
    const reordered = Object.fromEntries(Object.entries(entries[3] as AuditEntry).reverse()) as unknown as AuditEntry;
    expect(await hashAuditEntry(reordered)).toBe((entries[3] as AuditEntry).hash);
  });

  it('an edited entry is caught at that entry', async () => {
    const edited = [...lines];
    edited[3] = (edited[3] as string).replace('"APPROVED"', '"REJECTED"');
    expect(await verifyAuditLog(edited)).toMatchObject({
      ok: false,
      position: 4,
      seq: 4,
      reason: 'hash_mismatch',
      verified: 3,
    });
  });

  it('an edited entry whose own hash was recomputed is caught at the next entry', async () => {
    const forged = { ...(entries[3] as AuditEntry), kycStatus: 'REJECTED' };
    const rehashed = { ...forged, hash: await hashAuditEntry(forged) };
    const log = [...entries.slice(0, 3), rehashed, ...entries.slice(4)];
    expect(await verifyAuditLog(log)).toMatchObject({ ok: false, position: 5, seq: 5, reason: 'broken_link' });
  });

  it('a deleted entry is caught where the gap is', async () => {
    const deleted = [...lines.slice(0, 3), ...lines.slice(4)];
    expect(await verifyAuditLog(deleted)).toMatchObject({ ok: false, position: 4, seq: 5, reason: 'broken_link' });
  });

  it('reordered entries are caught at the first one out of place', async () => {
    const swapped = [...lines];
    [swapped[5], swapped[6]] = [swapped[6] as string, swapped[5] as string];
    expect(await verifyAuditLog(swapped)).toMatchObject({ ok: false, position: 6, seq: 7, reason: 'broken_link' });
  });

  it('a cut-off start is caught at once; a cut-off end only against the head kept elsewhere', async () => {
    expect(await verifyAuditLog(lines.slice(2))).toMatchObject({ ok: false, position: 1, reason: 'broken_link' });
    const head = { seq: 10, hash: (entries[9] as AuditEntry).hash };
    expect(await verifyAuditLog(lines.slice(0, 7))).toMatchObject({ ok: true, count: 7 });
    expect(await verifyAuditLog(lines.slice(0, 7), { expectedHead: head })).toMatchObject({
      ok: false,
      position: 8,
      reason: 'head_mismatch',
      verified: 7,
    });
    expect(await verifyAuditLog(lines, { expectedHead: head })).toMatchObject({ ok: true });
  });

  it('a line cut short by a crash, or that is not an entry, is unreadable at its line', async () => {
    const torn = [...lines.slice(0, 9), (lines[9] as string).slice(0, 40)];
    expect(await verifyAuditLog(torn)).toMatchObject({ ok: false, position: 10, reason: 'unreadable' });
    expect(await verifyAuditLog(['{"hello":1}'])).toMatchObject({ ok: false, position: 1, reason: 'unreadable' });
  });

  it('a later part of a log verifies from the head of the part before it (rotated files)', async () => {
    const after = { seq: 5, hash: (entries[4] as AuditEntry).hash };
    expect(await verifyAuditLog(lines.slice(5), { after })).toMatchObject({ ok: true, count: 5 });
    expect(await verifyAuditLog(lines.slice(6), { after })).toMatchObject({ ok: false, reason: 'broken_link' });
  });

  it('reads async streams', async () => {
    async function* stream() {
      yield* lines;
    }
    expect(await verifyAuditLog(stream())).toMatchObject({ ok: true, count: 10 });
  });
});
