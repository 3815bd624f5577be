/**
 * The wire protocol between the sandbox and `kyc-sandbox listen`: one WebSocket, opened by
 * the CLI to {@link LISTEN_PATH} with the user's HTTP Basic credentials, carrying JSON text
 * messages. The sandbox sends each attempt it forwards; the CLI POSTs it to the local URL and
 * answers with one `result`. Both ends parse every message with these schemas.
 */
import { DEFAULT_MAX_BODY_BYTES, RESPONSE_SNIPPET_MAX_BYTES } from '@kyc/contracts';
import * as z from 'zod';

/** Where the CLI opens its WebSocket (HTTP Basic on the upgrade request, like the rest of `/sandbox`). */
export const LISTEN_PATH = '/sandbox/listen';
/** Bumped on an incompatible change; the sandbox refuses a CLI that speaks another one. */
export const LISTEN_PROTOCOL = 'kyc-sandbox-listen.v1';

/** Headers of the upgrade request that tell the portal where a listener runs. */
export const LISTEN_HEADERS = Object.freeze({
  host: 'kyc-listen-host',
  forwardTo: 'kyc-listen-forward-to',
});

/** Close codes (4000–4999 are the application's). */
export const CLOSE = Object.freeze({
  /** Another listener of the same company connected: the newest wins. */
  replaced: 4001,
  /** The sandbox is shutting down; the CLI reconnects. */
  goingAway: 1001,
  /** A message that does not parse. */
  protocolError: 4002,
});

/** Largest message either side accepts: a 1 MiB body plus its headers, with room to spare. */
export const MAX_MESSAGE_BYTES = 2 * DEFAULT_MAX_BODY_BYTES;
/** Longest error text a result may carry. */
const MAX_MESSAGE_CHARS = 2000;

const text = (max: number) => z.string().max(max);

/** Sent once the listener is registered. */
export const readyMessageSchema = z.strictObject({
  type: z.literal('ready'),
  listenerId: text(64),
  username: text(64),
  company: text(200),
  since: z.iso.datetime(),
  /** The engine's per-attempt deadline: the CLI gives the local request no longer. */
  deadlineMs: z.number().int().positive(),
  /** The sandbox's schedule speed-up (1 = the protocol's 1/5/15 minutes). */
  timeScale: z.number().positive(),
  /**
   * The last four characters of the company's Auth Key when the listener connected, so the CLI
   * can say which key the deliveries carry; null when none is set (they carry no Authorization).
   */
  authKeyLast4: text(4).nullable(),
});

/** One attempt to POST to the local URL, exactly as the engine built it. */
export const attemptMessageSchema = z.strictObject({
  type: z.literal('attempt'),
  id: text(64),
  eventId: text(256),
  attempt: z.number().int().positive(),
  headers: z.record(text(200), text(8192)),
  body: text(DEFAULT_MAX_BODY_BYTES),
  deadlineMs: z.number().int().positive(),
});

/** The engine gave the attempt up (its deadline ran out, or it is stopping): no result is wanted. */
export const cancelMessageSchema = z.strictObject({
  type: z.literal('cancel'),
  id: text(64),
  reason: text(200),
});

/** What the engine recorded for a forwarded attempt, and what comes next. */
export const recordedMessageSchema = z.strictObject({
  type: z.literal('recorded'),
  eventId: text(256),
  attempt: z.number().int().positive(),
  outcome: text(64),
  status: z.number().int().nullable(),
  state: z.enum(['pending', 'delivered', 'failed']),
  /** Wall-clock time of the next attempt, for `pending`. */
  nextAttemptAt: z.iso.datetime().nullable(),
});

/** A newer listener of the same company took over; this one gets nothing more. */
export const replacedMessageSchema = z.strictObject({
  type: z.literal('replaced'),
  by: z.strictObject({ host: text(200), address: text(64), since: z.iso.datetime() }),
});

export const serverMessageSchema = z.discriminatedUnion('type', [
  readyMessageSchema,
  attemptMessageSchema,
  cancelMessageSchema,
  recordedMessageSchema,
  replacedMessageSchema,
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;
export type AttemptMessage = z.infer<typeof attemptMessageSchema>;

/** Failures of the local POST, named like the engine's own outcomes. */
export const LOCAL_FAILURES = ['timeout', 'connect_error', 'connection_reset', 'tls_error', 'dns_error'] as const;

/** The CLI's report of one attempt: a status (with a snippet of the answer), or a failure. */
export const resultMessageSchema = z.strictObject({
  type: z.literal('result'),
  id: text(64),
  status: z.number().int().min(100).max(599).optional(),
  latencyMs: z.number().min(0),
  snippet: text(RESPONSE_SNIPPET_MAX_BYTES).optional(),
  failure: z.strictObject({ outcome: z.enum(LOCAL_FAILURES), message: text(MAX_MESSAGE_CHARS) }).optional(),
});
export type ResultMessage = z.infer<typeof resultMessageSchema>;

export const clientMessageSchema = z.discriminatedUnion('type', [resultMessageSchema]);

/** Parses one text frame; `undefined` when it is not JSON or not a known message. */
export function parseMessage<T>(schema: z.ZodType<T>, data: unknown): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(String(data)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
