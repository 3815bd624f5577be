import { HEADERS } from '@kyc/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AUTH_KEY, OTHER_KEY } from '../../test/support/receiver-table.js';
import { type AuditEntry, auditTrail, callbackAuditSink } from '../audit.js';
import { createWebhookReceiver } from '../index.js';

const SIGNING_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** Strings that weave the keys, the secret and the sender's token into noise. */
const laced = (token: string) =>
  fc
    .array(fc.oneof(fc.string(), fc.constantFrom(AUTH_KEY, OTHER_KEY, SIGNING_SECRET, token, `Bearer ${token}`)), {
      maxLength: 4,
    })
    .map((parts) => parts.join(''));

describe('no Auth Key, secret or Authorization value in any entry (fuzzed headers and bodies)', () => {
  it('whatever the sender puts in the headers, the body or the session id', async () => {
    const entries: AuditEntry[] = [];
    const receiver = createWebhookReceiver({
      authKeys: [AUTH_KEY, OTHER_KEY],
      onEvent: () => undefined,
      logger: {},
      audit: auditTrail({ sink: callbackAuditSink((batch) => void entries.push(...batch)), includeBody: true }),
    });
    const token = fc.oneof(
      fc.constantFrom(AUTH_KEY, OTHER_KEY),
      fc.string({ minLength: 8, maxLength: 40 }).filter((t) => !/[\s]/.test(t)),
    );
    await fc.assert(
      fc.asyncProperty(
        token.chain((tokenValue) =>
          fc.record({
            token: fc.constant(tokenValue),
            scheme: fc.constantFrom('Bearer', 'bearer', 'Basic', ''),
            webhookId: laced(tokenValue),
            timestamp: laced(tokenValue),
            signature: laced(tokenValue),
            sessionId: laced(tokenValue),
            extra: laced(tokenValue),
            json: fc.boolean(),
          }),
        ),
        async (input) => {
          const before = entries.length;
          const headers: Record<string, string> = {
            [HEADERS.authorization]: `${input.scheme} ${input.token}`.trim(),
            [HEADERS.webhookId]: input.webhookId,
            [HEADERS.webhookTimestamp]: input.timestamp,
            [HEADERS.webhookSignature]: input.signature,
          };
          const body = input.json
            ? JSON.stringify({ sessionId: input.sessionId || 'sess', note: input.extra })
            : input.extra;
          await receiver.receive({
            method: 'POST',
            header: (name) => headers[name],
            readBody: async () => new TextEncoder().encode(body),
          });
          expect(entries.length).toBe(before + 1);
          const text = JSON.stringify(entries[entries.length - 1]);
          for (const secret of [AUTH_KEY, OTHER_KEY, input.token, headers[HEADERS.authorization] as string]) {
            expect(text).not.toContain(JSON.stringify(secret).slice(1, -1));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
