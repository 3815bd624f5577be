import { type FinishSessionRequest, HEADERS, JSON_CONTENT_TYPE, type SessionDetails } from '@kyc/contracts';
import ky, { type KyInstance } from 'ky';
import { sessionIdFromDetailsUrl } from './details-url.js';
import { KycInvalidRequestError } from './errors.js';
import { readFailure, readSessionDetails } from './read-response.js';
import { createScrubber, REDACTED, redactHeaders, type Scrubber } from './redact.js';
import { DEFAULT_MAX_RETRIES, MAX_RETRIES_LIMIT } from './retry-policy.js';
import {
  type KycLogger,
  type KycRetryEvent,
  type KycSleep,
  type RequestPlan,
  runWithRetries,
} from './run-with-retries.js';
import { assertSessionId, resolveEndpoints, type ServiceEndpoints, sessionUrl } from './service-url.js';

/** Default bound of one attempt, response body included. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Default bound of a whole call: attempts and waits together. Long enough for one capped
 * 60 s `Retry-After` plus the attempts around it.
 */
export const DEFAULT_DEADLINE_MS = 90_000;

// setTimeout's limit; larger values fire at once.
const MAX_TIMER_MS = 2_147_483_647;

/** Options of {@link KycClient}. */
export interface KycClientOptions {
  /** The service's URL, optionally with a path prefix; a trailing slash is ignored. */
  readonly baseUrl: string;
  /** HTTP Basic username issued by the operator (must not contain `:`). */
  readonly username: string;
  /** HTTP Basic password. Kept in a private field; never shown in errors, logs or JSON. */
  readonly password: string;
  /** Bound of each attempt, until the whole body is read. Default {@link DEFAULT_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Bound of the whole call across attempts and retry waits. Default {@link DEFAULT_DEADLINE_MS}. */
  readonly deadlineMs?: number;
  /** Retries after the first attempt (0–10). Default 2. */
  readonly maxRetries?: number;
  /** Any WHATWG `fetch` (Node, Bun, Deno, Workers, undici). Default: `globalThis.fetch` at call time. */
  readonly fetch?: typeof globalThis.fetch;
  /** Extra headers sent on every request; `authorization` cannot be overridden. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Called before every retry wait. Errors it throws are ignored. */
  readonly onRetry?: (event: KycRetryEvent) => void;
  /** Receives one `warn` line per retry. Nothing secret is ever passed to it. */
  readonly logger?: KycLogger;
  /** How the client waits between attempts; tests pass one that does not really wait. */
  readonly sleep?: KycSleep;
  /** Jitter source in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
}

/** Per-call options. */
export interface KycCallOptions {
  /** Aborts the call, including a retry wait; the call then rejects with `KycAbortError`. */
  readonly signal?: AbortSignal;
}

/**
 * Typed client of the KYC service API: finish a flow, read a flow's details. Retries transient
 * failures, bounds each attempt and the whole call, validates responses against
 * `@kyc/contracts`, and throws only {@link KycError} subclasses.
 *
 * @example
 * const client = new KycClient({ baseUrl: 'https://kyc.example.com', username: 'acme', password: process.env.KYC_PASSWORD! });
 * const details = await client.finishSession('sess_8f14e45fceea167a');
 * console.log(details.state, details.scores?.total);
 */
export class KycClient {
  readonly #endpoints: ServiceEndpoints;
  readonly #getHeaders: Readonly<Record<string, string>>;
  readonly #postHeaders: Readonly<Record<string, string>>;
  readonly #redactedGetHeaders: Readonly<Record<string, string>>;
  readonly #redactedPostHeaders: Readonly<Record<string, string>>;
  readonly #scrub: Scrubber;
  readonly #ky: KyInstance;
  readonly #fetch: typeof globalThis.fetch | undefined;
  readonly #timeoutMs: number;
  readonly #deadlineMs: number;
  readonly #maxRetries: number;
  readonly #hooks: Pick<RequestPlan, 'onRetry' | 'logger' | 'sleep' | 'random'>;

  constructor(options: KycClientOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new KycInvalidRequestError('invalid_option', 'KycClient needs an options object');
    }
    this.#endpoints = resolveEndpoints(options.baseUrl);
    const { username, password } = options;
    if (typeof username !== 'string' || username === '' || username.includes(':')) {
      throw new KycInvalidRequestError('invalid_option', 'username must be a non-empty string without ":"');
    }
    if (typeof password !== 'string' || password === '') {
      throw new KycInvalidRequestError('invalid_option', 'password must be a non-empty string');
    }
    const token = toBase64(`${username}:${password}`);
    this.#scrub = createScrubber([password, token]);
    this.#timeoutMs = readDuration(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.#deadlineMs = readDuration(options.deadlineMs, DEFAULT_DEADLINE_MS, 'deadlineMs');
    this.#maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!Number.isInteger(this.#maxRetries) || this.#maxRetries < 0 || this.#maxRetries > MAX_RETRIES_LIMIT) {
      throw new KycInvalidRequestError(
        'invalid_option',
        `maxRetries must be an integer from 0 to ${MAX_RETRIES_LIMIT}`,
      );
    }
    if (options.fetch !== undefined && typeof options.fetch !== 'function') {
      throw new KycInvalidRequestError('invalid_option', 'fetch must be a function');
    }
    try {
      new Headers(options.headers);
    } catch {
      // The cause is dropped on purpose: its message may quote a header value (a token).
      throw new KycInvalidRequestError('invalid_option', 'headers must be valid HTTP header names and values');
    }
    // Built once: lower-cased names, and `authorization` set last so extra headers cannot replace it.
    const extra: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) extra[name.toLowerCase()] = value;
    this.#getHeaders = { ...extra, [HEADERS.authorization]: `Basic ${token}` };
    this.#postHeaders = { ...this.#getHeaders, [HEADERS.contentType]: JSON_CONTENT_TYPE };
    this.#redactedGetHeaders = redactHeaders(this.#getHeaders);
    this.#redactedPostHeaders = redactHeaders(this.#postHeaders);
    this.#fetch = options.fetch;
    this.#hooks = { onRetry: options.onRetry, logger: options.logger, sleep: options.sleep, random: options.random };
    // ky does the HTTP work; retries, timeouts and error mapping are ours, because ky's
    // timeout stops at the headers, it has no overall deadline, and its Retry-After has no cap.
    this.#ky = ky.create({
      retry: 0,
      timeout: false,
      throwHttpErrors: false,
      // Never carry the Basic credentials to wherever a redirect points.
      redirect: 'manual',
    });
  }

  /**
   * Ends a flow, which makes the service send the completion webhook. Idempotent: finishing a
   * finished session returns the same details and sends no second webhook, so it is retried.
   *
   * @example
   * const details = await client.finishSession('sess_8f14e45fceea167a', { signal: AbortSignal.timeout(5000) });
   */
  async finishSession(sessionId: string, options: KycCallOptions = {}): Promise<SessionDetails> {
    const body: FinishSessionRequest = { sessionId: assertSessionId(sessionId, 'sessionId') };
    return this.#call('POST', this.#endpoints.finishUrl, JSON.stringify(body), options);
  }

  /**
   * Reads a flow's details. The id is percent-encoded into the path.
   *
   * @example
   * const { state, status } = await client.getSession('sess_8f14e45fceea167a');
   */
  async getSession(sessionId: string, options: KycCallOptions = {}): Promise<SessionDetails> {
    const id = assertSessionId(sessionId, 'sessionId');
    return this.#call('GET', sessionUrl(this.#endpoints, id), undefined, options);
  }

  /**
   * Reads the details a webhook's detailsURL points at, but only when it points at exactly the
   * configured service (origin and base path); anything else throws `KycInvalidRequestError`
   * without a request, so a forged webhook cannot make your server send its credentials elsewhere.
   *
   * @example
   * const details = await client.getSessionByDetailsUrl(webhook.detailsURL);
   */
  async getSessionByDetailsUrl(detailsUrl: string, options: KycCallOptions = {}): Promise<SessionDetails> {
    const id = sessionIdFromDetailsUrl(detailsUrl, this.#endpoints);
    return this.getSession(id, options);
  }

  /** A secret-free view: what `JSON.stringify(client)` prints. */
  toJSON(): Record<string, unknown> {
    return {
      baseUrl: this.#endpoints.baseUrl,
      password: REDACTED,
      timeoutMs: this.#timeoutMs,
      deadlineMs: this.#deadlineMs,
      maxRetries: this.#maxRetries,
    };
  }

  toString(): string {
    return `KycClient(${this.#endpoints.baseUrl})`;
  }

  /** What `util.inspect` and `console.log` show (Node calls this symbol; no `node:util` import needed). */
  [Symbol.for('nodejs.util.inspect.custom')](_depth: number, options: unknown, inspect: unknown): string {
    const view = this.toJSON();
    return typeof inspect === 'function' ? `KycClient ${inspect(view, options)}` : `KycClient ${JSON.stringify(view)}`;
  }

  async #call(method: string, url: string, body: string | undefined, options: KycCallOptions): Promise<SessionDetails> {
    const post = body !== undefined;
    const plan: RequestPlan = {
      ky: this.#ky,
      method,
      url,
      headers: post ? this.#postHeaders : this.#getHeaders,
      body,
      request: { method, url, headers: post ? this.#redactedPostHeaders : this.#redactedGetHeaders },
      scrub: this.#scrub,
      timeoutMs: this.#timeoutMs,
      deadlineMs: this.#deadlineMs,
      maxRetries: this.#maxRetries,
      signal: options.signal,
      fetch: this.#fetch,
      ...this.#hooks,
    };
    const exchange = await runWithRetries(plan, (failed) => readFailure(failed, this.#scrub, Date.now()));
    return readSessionDetails(exchange, this.#scrub);
  }
}

function readDuration(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new KycInvalidRequestError('invalid_option', `${name} must be a positive number of milliseconds`);
  }
  return value;
}

// RFC 7617: Basic credentials are UTF-8, then base64. btoa only takes Latin-1, so go via bytes.
function toBase64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
