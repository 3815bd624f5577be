import { describe, expect, it } from 'vitest';
import * as contracts from './index.js';

describe('protocol constants', () => {
  it('match the specification', () => {
    expect(contracts.WEBHOOK_RESPONSE_DEADLINE_MS).toBe(30_000);
    expect(contracts.WEBHOOK_MAX_ATTEMPTS).toBe(4);
    expect(contracts.WEBHOOK_RETRY_DELAYS_MS).toEqual([60_000, 300_000, 900_000]);
    expect(contracts.WEBHOOK_RETRY_DELAYS_MS).toHaveLength(contracts.WEBHOOK_MAX_ATTEMPTS - 1);
    expect(contracts.WEBHOOK_SUCCESS_STATUS).toBe(200);
    expect(contracts.AUTH_KEY_MIN_LENGTH).toBe(16);
    expect(contracts.WEBHOOK_USER_AGENT).toBe('Service-Webhook/1.0');
    expect(contracts.API_BASE_PATH).toBe('/api/v1/kyc');
    expect(contracts.DEFAULT_IDEMPOTENCY_TTL_MS).toBe(7 * 86_400_000);
    expect(contracts.DEFAULT_HANDLER_TIMEOUT_MS).toBeLessThan(contracts.WEBHOOK_RESPONSE_DEADLINE_MS);
    expect(contracts.DEFAULT_INBOX_RETENTION_MS).toBeGreaterThan(contracts.DEFAULT_IDEMPOTENCY_TTL_MS);
    expect(contracts.DEFAULT_INBOX_LOCK_TIMEOUT_MS).toBeLessThan(contracts.DEFAULT_HANDLER_TIMEOUT_MS);
  });

  it('are frozen', () => {
    expect(Object.isFrozen(contracts.WEBHOOK_RETRY_DELAYS_MS)).toBe(true);
    expect(Object.isFrozen(contracts.HEADERS)).toBe(true);
    expect(Object.isFrozen(contracts.SUGGESTED_ACTIONS)).toBe(true);
  });

  it('name a suggested action for every status', () => {
    for (const status of contracts.VERIFICATION_STATUSES) expect(contracts.SUGGESTED_ACTIONS[status]).toBeTruthy();
  });
});
