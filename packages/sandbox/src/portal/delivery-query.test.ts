import { describe, expect, it } from 'vitest';
import { encodeCursor, PAGE_SIZE, parseDeliveryQuery } from './delivery-query.js';

describe('parseDeliveryQuery', () => {
  it('maps the URL filter to a store query (Retrying is pending; To is an inclusive day)', () => {
    const parsed = parseDeliveryQuery({
      status: 'retrying',
      session: ' ABC123 ',
      from: '2026-11-01',
      to: '2026-11-02',
    });
    expect(parsed).toEqual({
      ok: true,
      query: {
        limit: PAGE_SIZE,
        state: 'pending',
        session: 'ABC123',
        from: Date.parse('2026-11-01T00:00:00Z'),
        to: Date.parse('2026-11-03T00:00:00Z'),
      },
      filter: { status: 'retrying', session: 'ABC123', replay: '', from: '2026-11-01', to: '2026-11-02' },
    });
  });

  it('takes a replay’s key, and refuses what no click could have sent', () => {
    const key = 'c0ffee00-1234-4abc-8def-000000000001';
    expect(parseDeliveryQuery({ replay: key })).toMatchObject({
      ok: true,
      query: { replay: key },
      filter: { replay: key },
    });
    for (const replay of ['short', "x' OR 1=1 --------", 'a'.repeat(129)]) {
      const parsed = parseDeliveryQuery({ replay });
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.issues.map((i) => i.path[0])).toEqual(['replay']);
    }
  });

  it('treats empty fields (a submitted form) as absent', () => {
    const parsed = parseDeliveryQuery({ status: '', session: '', from: '', to: '' });
    expect(parsed).toMatchObject({ ok: true, query: { limit: PAGE_SIZE }, filter: { status: 'all' } });
  });

  it('round-trips cursors and refuses forged ones', () => {
    const cursor = encodeCursor({ createdAt: 1_764_000_000_000, eventId: 'evt_abc' });
    expect(parseDeliveryQuery({ after: cursor })).toMatchObject({
      ok: true,
      query: { after: { createdAt: 1_764_000_000_000, eventId: 'evt_abc' } },
    });
    const forged = parseDeliveryQuery({ after: Buffer.from("1.x' OR 1=1").toString('base64url') });
    expect(forged.ok).toBe(false);
  });

  it('names the bad parameter', () => {
    const parsed = parseDeliveryQuery({ status: 'lost', from: '2026-13-45' });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.issues.map((i) => i.path[0]).sort()).toEqual(['from', 'status']);
  });
});
