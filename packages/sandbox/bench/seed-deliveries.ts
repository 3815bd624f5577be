import { randomBytes } from 'node:crypto';
import { WEBHOOK_RETRY_DELAYS_MS } from '@kyc/contracts';
import Database from 'better-sqlite3';
import { type PortalState, PortalStore } from '../src/portal/portal-store.js';

const DAY_MS = 86_400_000;
const SHORT_KEY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** Rows of the seeded log the bench looks things up by. */
export interface SeededLog {
  /** A session id and a short key that each match exactly one delivery, from the middle of the log. */
  readonly sessionId: string;
  readonly shortKey: string;
  /** The row `deep` positions from the newest one, to start a page from (keyset, newest first). */
  readonly deepRow: { readonly createdAt: number; readonly eventId: string };
  /** A UTC day in the middle of the log (`YYYY-MM-DD`). */
  readonly middleDay: string;
}

/** 80 % delivered, 15 % failed, 5 % still retrying: an endpoint with a bad month behind it. */
function stateOf(i: number): PortalState {
  const r = i % 20;
  if (r < 16) return 'delivered';
  if (r < 19) return 'failed';
  return 'pending';
}

/**
 * Writes `count` deliveries for `companyId`, spread evenly over the `days` days before `now`,
 * each with its last attempt, into the portal's projection in the sandbox's SQLite file. Only
 * the projection is seeded: it is all the Deliveries page reads (the engine's store is read
 * for one delivery's page, not for the log).
 */
export function seedDeliveries(
  path: string,
  options: { company: string; count: number; days: number; now: number; deep: number },
): SeededLog {
  const db = new Database(path);
  const portal = new PortalStore(db);
  const company = db.prepare('SELECT id FROM companies WHERE name = ?').get(options.company) as
    | { id: number }
    | undefined;
  if (!company) throw new Error(`no company named ${options.company}`);
  const step = Math.floor((options.days * DAY_MS) / options.count);
  const start = options.now - options.days * DAY_MS;
  const middle = Math.floor(options.count / 2);
  let picked: { sessionId: string; shortKey: string } | undefined;
  let deepRow: { createdAt: number; eventId: string } | undefined;
  try {
    db.transaction(() => {
      for (let i = 0; i < options.count; i++) {
        const createdAt = start + i * step;
        const eventId = `evt_${randomBytes(16).toString('hex')}`;
        const sessionId = `sess_${randomBytes(12).toString('hex')}`;
        const shortKey = Array.from(randomBytes(6), (b) => SHORT_KEY_ALPHABET[b % SHORT_KEY_ALPHABET.length]).join('');
        const state = stateOf(i);
        portal.insertDelivery({
          eventId,
          companyId: company.id,
          sessionId,
          shortKey,
          kind: 'session',
          url: 'https://receiver.example/kyc/webhook',
          authKeyHint: 'x9Q2',
          state: 'pending',
          note: undefined,
          createdAt,
          updatedAt: createdAt,
        });
        const attempts = state === 'delivered' ? 1 + (i % 2) : state === 'failed' ? 4 : 1;
        const failed = state !== 'delivered';
        portal.recordAttempt(
          {
            eventId,
            attempt: attempts,
            at: createdAt + 1000,
            outcome: failed ? 'server_error' : 'delivered',
            status: failed ? 500 : 200,
            latencyMs: 20 + (i % 180),
            error: undefined,
          },
          state,
          state === 'pending' ? createdAt + WEBHOOK_RETRY_DELAYS_MS[1] : undefined,
          createdAt + 1000,
        );
        if (i === middle) picked = { sessionId, shortKey };
        if (i === options.count - 1 - options.deep) deepRow = { createdAt, eventId };
      }
    })();
  } finally {
    db.close();
  }
  if (!picked || !deepRow) throw new Error('the log is too short for the bench');
  return {
    ...picked,
    deepRow,
    middleDay: new Date(start + middle * step).toISOString().slice(0, 10),
  };
}
