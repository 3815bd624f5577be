import {
  DEFAULT_MAX_BODY_BYTES,
  type NormalizedCombinedWebhook,
  type NormalizedStatusWebhook,
  type NormalizedV1Webhook,
  normalizeWebhookBody,
} from '@kyc/contracts/webhook-reader';
import { idempotencyKeyFor } from './idempotency-key.js';
import { rawBodyFix } from './raw-body-fix.js';
import { WebhookError } from './webhook-error.js';

/** What identifies one event beyond its body. */
export interface WebhookEventIdentity {
  /** The key the receiver deduplicates on: `Webhook-Id` when sent, else derived from the event. */
  readonly idempotencyKey: string;
  /** The `Webhook-Id` header, when the sender gave one. */
  readonly webhookId?: string;
}

/** A v1-shaped event. */
export type KycV1WebhookEvent = NormalizedV1Webhook & WebhookEventIdentity;
/** A status-shaped event. */
export type KycStatusWebhookEvent = NormalizedStatusWebhook & WebhookEventIdentity;
/** An event whose body carries both groups. */
export type KycCombinedWebhookEvent = NormalizedCombinedWebhook & WebhookEventIdentity;

/** A parsed webhook: narrow on `shape` to reach the fields of each group. */
export type KycWebhookEvent = KycV1WebhookEvent | KycStatusWebhookEvent | KycCombinedWebhookEvent;

/** The raw body as received: the exact bytes, or their text. */
export type WebhookBody = string | Uint8Array | ArrayBuffer;

/** Options of {@link parseWebhook}. */
export interface ParseWebhookOptions {
  /** Reject a body that has any issue (a missing or malformed field) instead of reporting it. */
  readonly strict?: boolean;
  /** The `Webhook-Id` header, which becomes the idempotency key. */
  readonly webhookId?: string | null | undefined;
}

/** The outcome of {@link safeParseWebhook}. */
export type SafeParseWebhookResult =
  | { readonly success: true; readonly event: KycWebhookEvent }
  | { readonly success: false; readonly error: WebhookError };

const decoder = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });
// The replacing decoder takes a faster path in V8/Node than the fatal one. Every invalid byte
// sequence becomes U+FFFD, so a text without one came from valid UTF-8; a text with one (an
// invalid body, or a valid body that spells U+FFFD) is decoded again by the fatal decoder.
const fastDecoder = /* @__PURE__ */ new TextDecoder('utf-8');

function describeType(body: unknown): string {
  if (body === null) return 'null';
  if (typeof body !== 'object') return typeof body;
  return body.constructor?.name ?? 'object';
}

function toText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) {
    const text = fastDecoder.decode(body);
    if (!text.includes('\uFFFD')) return text;
    try {
      return decoder.decode(body);
    } catch (cause) {
      throw new WebhookError('invalid_encoding', 'The webhook body is not valid UTF-8.', {
        cause,
        issues: [{ path: [], message: 'not valid UTF-8' }],
      });
    }
  }
  if (typeof body === 'object' && body !== null && !ArrayBuffer.isView(body)) {
    throw new WebhookError(
      'parsed_body',
      `The webhook body was already parsed into ${describeType(body)}: a JSON body parser ran before the receiver. ` +
        `Pass the raw body (string, Uint8Array or ArrayBuffer) instead. ${rawBodyFix(DEFAULT_MAX_BODY_BYTES)}`,
      { issues: [{ path: [], message: `already parsed into ${describeType(body)}; the raw body is required` }] },
    );
  }
  throw new WebhookError(
    'invalid_body_type',
    `The webhook body must be a string, Uint8Array or ArrayBuffer, got ${describeType(body)}.`,
    { issues: [{ path: [], message: `expected a string, Uint8Array or ArrayBuffer, got ${describeType(body)}` }] },
  );
}

/**
 * Reads a raw webhook body: decodes UTF-8, parses JSON and normalises either shape (see
 * `normalizeWebhookBody` in `@kyc/contracts`). Missing or malformed fields are listed in
 * `event.issues` unless `strict` is set, in which case they reject the body.
 *
 * @throws {@link WebhookError} when the body cannot be a webhook (its `code` says why).
 * @example
 * const event = parseWebhook(await request.text(), { webhookId: request.headers.get(HEADERS.webhookId) });
 * if (event.shape !== 'v1') await recordResult(event.sessionId, event.status);
 */
export function parseWebhook(body: WebhookBody, options: ParseWebhookOptions = {}): KycWebhookEvent {
  const text = toText(body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // Not kept as `cause`: engines quote the body in JSON.parse's message, and a body may carry personal data.
    const position = error instanceof Error ? /position (\d+)/.exec(error.message)?.[1] : undefined;
    const where = position === undefined ? '' : ` at position ${position}`;
    throw new WebhookError('invalid_json', `The webhook body is not valid JSON${where}.`, {
      issues: [{ path: [], message: `not valid JSON${where}` }],
    });
  }
  const result = normalizeWebhookBody(json);
  if (!result.ok) {
    const first = result.issues[0];
    const where = first === undefined ? '' : ` (${first.path.join('.') || 'body'}: ${first.message})`;
    throw new WebhookError(result.code, `The webhook body was refused: ${result.code}${where}.`, {
      issues: result.issues,
    });
  }
  const { webhook } = result;
  if (options.strict === true && webhook.issues.length > 0) {
    throw new WebhookError(
      'strict_violation',
      `The webhook body has ${webhook.issues.length} issue(s) and strict mode is on; see error.issues.`,
      { issues: webhook.issues },
    );
  }
  const webhookId = typeof options.webhookId === 'string' && options.webhookId !== '' ? options.webhookId : undefined;
  // Added in place by name: Object.assign with a fresh identity object cost more than the two stores.
  const identity = webhook as unknown as { -readonly [K in keyof WebhookEventIdentity]: WebhookEventIdentity[K] };
  identity.idempotencyKey = idempotencyKeyFor(webhook, webhookId, text);
  if (webhookId !== undefined) identity.webhookId = webhookId;
  return webhook as KycWebhookEvent;
}

/**
 * Like {@link parseWebhook}, but returns the error instead of throwing it.
 *
 * @example
 * const result = safeParseWebhook(text);
 * if (!result.success) console.warn(result.error.code, result.error.issues);
 */
export function safeParseWebhook(body: WebhookBody, options: ParseWebhookOptions = {}): SafeParseWebhookResult {
  try {
    return { success: true, event: parseWebhook(body, options) };
  } catch (error) {
    if (error instanceof WebhookError) return { success: false, error };
    return {
      success: false,
      error: new WebhookError('invalid_body_type', 'The webhook body could not be read.', { cause: error }),
    };
  }
}
