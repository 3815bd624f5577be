import { DEFAULT_MAX_BODY_BYTES, normalizeWebhookBody } from '@kyc/contracts';
import { DeliveryEngineError } from '../delivery-engine-error.js';
import type { NewDelivery } from '../store/store.js';
import { signingKey } from './signing.js';

/** A receiver reads at most eight signatures of one header (the Standard Webhooks libraries' habit). */
export const MAX_SIGNING_SECRETS = 8;

/** One completion event to deliver to one company endpoint. */
export interface WebhookEvent {
  /** The company's webhook URL (`https:`; checked at enqueue and again before every attempt). */
  readonly url: string;
  /** The company's Auth Key, sent as `Authorization: Bearer …`. Omit for v1 endpoints without one. */
  readonly authKey?: string;
  /** The webhook body: a JSON string (sent byte for byte) or a value to serialise, e.g. a `WebhookStatusBody`. */
  readonly body: string | object;
  /**
   * The event id, sent as Webhook-Id header on every attempt and redelivery. Generated when absent:
   * `evt_` and a UUIDv7 (time-ordered, so the store's key indexes grow at their end). Ids you pass
   * are stored as given; time-ordered ones cost the store less than random ones.
   */
  readonly id?: string;
  /**
   * A Standard Webhooks secret (`whsec_…`) for this endpoint, or several during a rotation's
   * overlap (every attempt then carries one signature per secret); overrides the engine's
   * `signing.secret`.
   */
  readonly signingSecret?: string | readonly string[];
  /**
   * The company this endpoint belongs to, for traces (`kyc.company.id`) and logs; never a
   * metric label. 1–256 visible ASCII characters.
   */
  readonly companyId?: string;
}

const EVENT_ID = /^[\x21-\x7e]{1,256}$/;
/** RFC 6750 b64token plus the characters keys are commonly generated with; no spaces, no CR/LF. */
export const AUTH_KEY_CHARS = /^[\x21-\x7e]+$/;

function invalid(message: string): DeliveryEngineError {
  return new DeliveryEngineError('invalid_event', message);
}

/**
 * Checks an event and turns it into the row the store keeps, with the `traceparent` of the
 * enqueuing span. Throws {@link DeliveryEngineError}.
 */
export function prepareEvent(event: WebhookEvent, url: URL, now: number, traceParent?: string): NewDelivery {
  const id = event.id;
  if (typeof id !== 'string' || !EVENT_ID.test(id)) {
    throw invalid('event.id: use 1–256 visible ASCII characters (it is sent as the Webhook-Id header)');
  }
  if (event.authKey !== undefined && (typeof event.authKey !== 'string' || !AUTH_KEY_CHARS.test(event.authKey))) {
    throw new DeliveryEngineError(
      'invalid_auth_key',
      'event.authKey: must be a non-empty string of visible ASCII characters without spaces',
    );
  }
  const signingSecret = event.signingSecret === undefined ? undefined : checkSecrets(event.signingSecret);
  if (event.companyId !== undefined && (typeof event.companyId !== 'string' || !EVENT_ID.test(event.companyId))) {
    throw invalid('event.companyId: use 1–256 visible ASCII characters');
  }
  const { body, sessionId } = serialiseBody(event.body);
  return {
    id,
    url: url.href,
    origin: url.origin,
    authKey: event.authKey,
    signingSecret,
    body,
    createdAt: now,
    sessionId,
    companyId: event.companyId,
    traceParent,
  };
}

/** One secret or a list of them, checked, as the store keeps them: space-separated. */
function checkSecrets(given: string | readonly string[]): string {
  if (typeof given === 'string') {
    signingKey(given, 'event.signingSecret');
    return given;
  }
  if (!Array.isArray(given) || given.length === 0 || given.length > MAX_SIGNING_SECRETS) {
    throw invalid(`event.signingSecret: a secret or a list of 1–${MAX_SIGNING_SECRETS} secrets`);
  }
  given.forEach((secret: string, position) => {
    signingKey(secret, `event.signingSecret[${position}]`);
  });
  return given.join(' ');
}

// A receiver answers 413 to a body over its limit on every attempt: refuse it now instead of
// queuing four certain failures.
function checkSize(text: string): void {
  // Checked before parsing, so a huge string costs no JSON.parse.
  const bytes = text.length > DEFAULT_MAX_BODY_BYTES ? text.length : Buffer.byteLength(text, 'utf8');
  if (bytes > DEFAULT_MAX_BODY_BYTES) {
    throw invalid(
      `event.body: ${bytes} bytes or more; receivers accept at most ${DEFAULT_MAX_BODY_BYTES} bytes (DEFAULT_MAX_BODY_BYTES)`,
    );
  }
}

function serialiseBody(body: unknown): { body: string; sessionId: string } {
  let text: string;
  let parsed: unknown;
  if (typeof body === 'string') {
    text = body;
    checkSize(text);
    try {
      parsed = JSON.parse(body);
    } catch {
      throw invalid('event.body: the string is not valid JSON');
    }
  } else if (typeof body === 'object' && body !== null) {
    try {
      text = JSON.stringify(body);
    } catch (error) {
      throw invalid(`event.body: cannot be serialised to JSON (${(error as Error).message})`);
    }
    // A toJSON() that returns undefined serialises to nothing at all.
    if (typeof text !== 'string') throw invalid('event.body: the object serialises to no JSON text');
    checkSize(text);
    parsed = JSON.parse(text);
  } else {
    throw invalid('event.body: expected a JSON string or an object');
  }
  // The receiver rejects a body without a session id, so the engine refuses to queue one.
  const check = normalizeWebhookBody(parsed);
  if (!check.ok) {
    const first = check.issues[0];
    const where = first === undefined ? '' : ` at ${first.path.join('.') || '(root)'}: ${first.message}`;
    throw invalid(`event.body: not a webhook body the protocol accepts (${check.code}${where})`);
  }
  return { body: text, sessionId: check.webhook.sessionId };
}
