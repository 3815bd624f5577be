/**
 * One telemetry case of the receiver bench in a fresh process (see telemetry.ts): CPU ns per
 * `receiver.receive` of a new status-shape event (verify + parse + memory claim + handler +
 * complete + the request-finished listeners) and per bare JSON.parse of the same body, printed
 * as one JSON line.
 */
import { HEADERS } from '@kyc/contracts';
import { createWebhookReceiver, type ReceiverInput } from '../src/index.js';
import { cpuNsPerCall } from './cpu-per-call.js';
import { AUTH_KEY, bodies } from './fixtures.js';

const CALLS = 50_000;
const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, onEvent: () => undefined, logger: {} });
const bytes = new TextEncoder().encode(bodies.status);
let next = 0;
const input = (): ReceiverInput => {
  const headers: Record<string, string> = {
    [HEADERS.authorization]: `Bearer ${AUTH_KEY}`,
    [HEADERS.webhookId]: `evt_${next++}`,
  };
  return { method: 'POST', header: (name) => headers[name], readBody: async () => bytes };
};
const parse = await cpuNsPerCall(() => JSON.parse(bodies.status), CALLS);
const receive = await cpuNsPerCall(async () => {
  const answer = await receiver.receive(input());
  if (answer.status !== 200) throw new Error(`the bench receiver answered ${answer.status}`);
}, CALLS);
console.log(JSON.stringify({ parse, receive }));
