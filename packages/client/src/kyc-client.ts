import { type FinishSessionRequest, HEADERS, JSON_CONTENT_TYPE, type SessionDetails } from '@kyc/contracts/service-api';
import ky, { type KyInstance } from 'ky';
import {
  type KycCallOptions,
  type KycClientOptions,
  type ResolvedClientOptions,
  readCallSignal,
  resolveClientOptions,
} from './client-options.js';
import { sessionIdFromDetailsUrl } from './details-url.js';
import { readFailure, readSessionDetails } from './read-response.js';
import { createScrubber, REDACTED, redactHeaders, type Scrubber } from './redact.js';
import { kyDefaults, type RequestPlan, runWithRetries } from './run-with-retries.js';
import { assertSessionId, type ServiceEndpoints, sessionUrl } from './service-url.js';
import { clientTelemetry } from './telemetry/client-telemetry.js';

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
  readonly #options: ResolvedClientOptions;
  readonly #getHeaders: Readonly<Record<string, string>>;
  readonly #postHeaders: Readonly<Record<string, string>>;
  readonly #redactedGetHeaders: Readonly<Record<string, string>>;
  readonly #redactedPostHeaders: Readonly<Record<string, string>>;
  readonly #scrub: Scrubber;
  readonly #ky: KyInstance;
  readonly #telemetry: ReturnType<typeof clientTelemetry>;

  constructor(options: KycClientOptions) {
    const resolved = resolveClientOptions(options);
    this.#options = resolved;
    this.#endpoints = resolved.endpoints;
    this.#scrub = createScrubber(resolved.secrets);
    // Built once, `authorization` set last so extra headers cannot replace it.
    this.#getHeaders = { ...resolved.headers, [HEADERS.authorization]: resolved.authorization };
    this.#postHeaders = { ...this.#getHeaders, [HEADERS.contentType]: JSON_CONTENT_TYPE };
    this.#redactedGetHeaders = redactHeaders(this.#getHeaders);
    this.#redactedPostHeaders = redactHeaders(this.#postHeaders);
    this.#ky = ky.create(kyDefaults());
    this.#telemetry = clientTelemetry(resolved.telemetry);
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
      timeoutMs: this.#options.timeoutMs,
      deadlineMs: this.#options.deadlineMs,
      maxRetries: this.#options.maxRetries,
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

  async #call(method: string, url: string, body: string | undefined, options: unknown): Promise<SessionDetails> {
    const signal = readCallSignal(options);
    const post = body !== undefined;
    const { timeoutMs, deadlineMs, maxRetries, fetch, onRetry, logger, sleep, random } = this.#options;
    const plan: RequestPlan = {
      ky: this.#ky,
      method,
      url,
      headers: post ? this.#postHeaders : this.#getHeaders,
      body,
      request: { method, url, headers: post ? this.#redactedPostHeaders : this.#redactedGetHeaders },
      scrub: this.#scrub,
      timeoutMs,
      deadlineMs,
      maxRetries,
      signal,
      fetch,
      onRetry,
      logger,
      sleep,
      random,
      startAttempt: this.#telemetry.start,
    };
    await this.#telemetry.ready();
    const exchange = await runWithRetries(plan, (failed) => readFailure(failed, this.#scrub, Date.now()));
    return readSessionDetails(exchange, this.#scrub);
  }
}
