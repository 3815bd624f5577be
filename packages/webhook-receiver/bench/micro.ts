import {
  DEFAULT_IDEMPOTENCY_LEASE_MS,
  DEFAULT_IDEMPOTENCY_TTL_MS,
  webhookStatusSchema,
  webhookV1Schema,
} from '@kyc/contracts';
import { Webhooks } from '@octokit/webhooks';
import { Webhook } from 'standardwebhooks';
import { memoryIdempotencyStore, parseWebhook, verifyAuthorization } from '../src/index.js';
import { cpuNsPerCall } from './cpu-per-call.js';
import { AUTH_KEY, bodies, GITHUB_SECRET, githubSignature, SW_SECRET } from './fixtures.js';
import { median } from './median.js';

const ROUNDS = 5;
const VERIFY_PARSE = 'verifyAuthorization + parseWebhook (bytes)';
const OURS = 'verifyAuthorization + parseWebhook + memory claim/complete';
const STANDARD = 'standardwebhooks verify + JSON.parse';
const OCTOKIT = 'Octokit verify + JSON.parse';
const FLOOD = 'memory claim only, new keys (a flood of live claims)';
const ZOD = 'JSON.parse + zod object parse (no key check)';
/** Issue 15's targets for the status shape, in multiples of bare JSON.parse. */
const TARGETS: Readonly<Record<string, number>> = { [VERIFY_PARSE]: 2.0, [OURS]: 2.4 };
const CALLS = Number(process.env.KYC_BENCH_CALLS ?? 50_000);

const measure = (work: () => unknown) => cpuNsPerCall(work, CALLS);

/** Per-webhook cost: ours (verify + parse + memory claim/complete) vs bare JSON.parse vs standardwebhooks. */
export async function runMicro(): Promise<void> {
  const header = `Bearer ${AUTH_KEY}`;
  const webhook = new Webhook(SW_SECRET);
  const octokit = new Webhooks({ secret: GITHUB_SECRET });
  const schemas = { v1: webhookV1Schema, status: webhookStatusSchema } as const;
  console.log(`\n## Per webhook (CPU ns/op, median of ${ROUNDS} interleaved rounds; ratio to bare JSON.parse)`);
  for (const [shape, text] of Object.entries(bodies)) {
    const store = memoryIdempotencyStore();
    // Handlers slower than the flood: new keys claimed and never completed, so after the first
    // 10 000 calls the default-bound store is full of live claims (this was O(maxEntries) per claim).
    const flooded = memoryIdempotencyStore();
    const bytes = new TextEncoder().encode(text);
    const msgId = 'msg_bench';
    const timestamp = new Date();
    const signature = webhook.sign(msgId, timestamp, text);
    const swHeaders = {
      'webhook-id': msgId,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    const githubHeader = githubSignature(text);
    const schema = schemas[shape as keyof typeof schemas];
    let sequence = 0;
    const cases: Record<string, () => unknown> = {
      'JSON.parse (baseline)': () => JSON.parse(text),
      // A new Webhook-Id each time, so every call is a new event: claim + complete with the receiver's defaults, as in production.
      [OURS]: async () => {
        if (!verifyAuthorization(header, AUTH_KEY).ok) throw new Error('auth');
        const event = parseWebhook(bytes, { webhookId: `evt_${sequence++}` });
        const claim = await store.claim(event.idempotencyKey, { leaseMs: DEFAULT_IDEMPOTENCY_LEASE_MS });
        if (claim.outcome !== 'claimed') throw new Error('claim');
        await store.complete(event.idempotencyKey, claim.token, { ttlMs: DEFAULT_IDEMPOTENCY_TTL_MS });
      },
      [VERIFY_PARSE]: () => {
        if (!verifyAuthorization(header, AUTH_KEY).ok) throw new Error('auth');
        return parseWebhook(bytes, { webhookId: `evt_${sequence++}` });
      },
      [FLOOD]: () => flooded.claim(`evt_${sequence++}`, { leaseMs: DEFAULT_IDEMPOTENCY_LEASE_MS }),
      [STANDARD]: () => webhook.verify(text, swHeaders),
      [OCTOKIT]: async () => {
        if (!(await octokit.verify(text, githubHeader))) throw new Error('signature');
        return JSON.parse(text);
      },
      // What a hand-written receiver with zod would do: the strict schema of the shape, no tolerance, no dedupe.
      [ZOD]: () => schema.parse(JSON.parse(text)),
    };
    const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((label) => [label, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, work] of Object.entries(cases)) samples[label]?.push(await measure(work));
    }
    const bare = median(samples['JSON.parse (baseline)'] ?? []);
    for (const [label, values] of Object.entries(samples)) {
      const ns = median(values);
      console.log(`${shape.padEnd(7)} ${label.padEnd(60)} ${ns.toFixed(0).padStart(7)} ns  ${(ns / bare).toFixed(2)}×`);
    }
    const standard = median(samples[STANDARD] ?? []);
    const octokitNs = median(samples[OCTOKIT] ?? []);
    for (const [label, target] of Object.entries(TARGETS)) {
      const ratio = median(samples[label] ?? []) / bare;
      const verdict = shape === 'status' ? ` (target ≤ ${target}×: ${ratio <= target ? 'met' : 'NOT met'})` : '';
      console.log(
        `${shape.padEnd(7)} → ${label}: ${ratio.toFixed(2)}× JSON.parse${verdict}, ` +
          `${((ratio * bare) / octokitNs).toFixed(2)}× Octokit, ${((ratio * bare) / standard).toFixed(2)}× standardwebhooks`,
      );
    }
  }
}
