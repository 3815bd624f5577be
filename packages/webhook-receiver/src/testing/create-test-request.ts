import {
  AUTH_SCHEME,
  HEADERS,
  JSON_CONTENT_TYPE,
  WEBHOOK_METHOD,
  WEBHOOK_USER_AGENT,
} from '@kyc/contracts/webhook-reader';

/** Options of {@link createTestRequest}. */
export interface TestRequestOptions {
  /** The body: an object or array is sent as JSON; a string or bytes are sent as they are. */
  readonly payload: unknown;
  /** Sent as `Authorization: Bearer <authKey>`; omit to send a v1 delivery without a key. */
  readonly authKey?: string;
  /** Sent as `Webhook-Id`, as the service does on every attempt of one event. */
  readonly webhookId?: string;
  /** Extra or overriding headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Default `https://receiver.test/webhooks/kyc`. */
  readonly url?: string;
  /** Default POST. */
  readonly method?: string;
}

const DEFAULT_URL = 'https://receiver.test/webhooks/kyc';

/**
 * Builds a Fetch `Request` shaped like a delivery from the service (same headers, raw JSON
 * body), to unit-test a receiver and its handler without the service.
 *
 * @example
 * const response = await receiver.handle(createTestRequest({ payload: samples.status, authKey: 'k'.repeat(32) }));
 * expect(response.status).toBe(200);
 */
export function createTestRequest(options: TestRequestOptions): Request {
  const { payload } = options;
  const headers = new Headers({ [HEADERS.contentType]: JSON_CONTENT_TYPE, [HEADERS.userAgent]: WEBHOOK_USER_AGENT });
  if (options.authKey !== undefined) headers.set(HEADERS.authorization, `${AUTH_SCHEME} ${options.authKey}`);
  if (options.webhookId !== undefined) headers.set(HEADERS.webhookId, options.webhookId);
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
  const method = options.method ?? WEBHOOK_METHOD;
  const body =
    typeof payload === 'string' || payload instanceof Uint8Array ? payload : (JSON.stringify(payload) ?? 'null');
  const init: RequestInit = { method, headers };
  if (method !== 'GET' && method !== 'HEAD') init.body = body as BodyInit;
  return new Request(options.url ?? DEFAULT_URL, init);
}
