import { KycInvalidRequestError } from './errors.js';
import { DEFAULT_MAX_RETRIES, MAX_RETRIES_LIMIT } from './retry-policy.js';
import type { KycLogger, KycRetryEvent, KycSleep } from './run-with-retries.js';
import { resolveEndpoints, type ServiceEndpoints } from './service-url.js';
import type { KycClientTelemetryOptions } from './telemetry/client-telemetry.js';

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
  /**
   * OpenTelemetry: one HTTP CLIENT span per attempt through `@opentelemetry/api` when it is
   * installed (an optional peer; default: the global provider). `false` turns it off.
   */
  readonly telemetry?: KycClientTelemetryOptions | false;
}

/** Per-call options. */
export interface KycCallOptions {
  /** Aborts the call, including a retry wait; the call then rejects with `KycAbortError`. */
  readonly signal?: AbortSignal;
}

/** The options after checking, as the client keeps them. */
export interface ResolvedClientOptions {
  readonly endpoints: ServiceEndpoints;
  /** The `Authorization` header value. */
  readonly authorization: string;
  /** Strings that must never leave the client: the password and its Basic encoding. */
  readonly secrets: readonly string[];
  /** Extra headers, names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  readonly maxRetries: number;
  readonly fetch: typeof globalThis.fetch | undefined;
  readonly onRetry: ((event: KycRetryEvent) => void) | undefined;
  readonly logger: KycLogger | undefined;
  readonly sleep: KycSleep | undefined;
  readonly random: (() => number) | undefined;
  readonly telemetry: KycClientTelemetryOptions | false | undefined;
}

const refuse = (message: string) => new KycInvalidRequestError('invalid_option', message);

/**
 * Checks {@link KycClientOptions}, throwing `KycInvalidRequestError` (reason `invalid_option`)
 * that names the option and the rule, never its value (it may be a credential).
 *
 * @example
 * resolveClientOptions({ baseUrl: 'https://kyc.example.com', username: 'acme', password: 'pw' }).maxRetries // 2
 */
export function resolveClientOptions(options: unknown): ResolvedClientOptions {
  if (typeof options !== 'object' || options === null) throw refuse('KycClient needs an options object');
  const input = options as Partial<Record<keyof KycClientOptions, unknown>>;
  const endpoints = resolveEndpoints(input.baseUrl);
  const { username, password } = input;
  if (typeof username !== 'string' || username === '' || username.includes(':')) {
    throw refuse('username must be a non-empty string without ":"');
  }
  if (typeof password !== 'string' || password === '') throw refuse('password must be a non-empty string');
  const token = toBase64(`${username}:${password}`);
  const maxRetries = input.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (
    typeof maxRetries !== 'number' ||
    !Number.isInteger(maxRetries) ||
    maxRetries < 0 ||
    maxRetries > MAX_RETRIES_LIMIT
  ) {
    throw refuse(`maxRetries must be an integer from 0 to ${MAX_RETRIES_LIMIT}`);
  }
  const logger = input.logger;
  if (
    logger !== undefined &&
    (typeof logger !== 'object' || logger === null || typeof (logger as KycLogger).warn !== 'function')
  ) {
    throw refuse('logger must be an object with a warn(message, fields) method');
  }
  return {
    endpoints,
    authorization: `Basic ${token}`,
    secrets: [password, token],
    headers: readHeaders(input.headers),
    timeoutMs: readDuration(input.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs'),
    deadlineMs: readDuration(input.deadlineMs, DEFAULT_DEADLINE_MS, 'deadlineMs'),
    maxRetries,
    fetch: readFunction<typeof globalThis.fetch>(input.fetch, 'fetch'),
    onRetry: readFunction<(event: KycRetryEvent) => void>(input.onRetry, 'onRetry'),
    logger: logger as KycLogger | undefined,
    sleep: readFunction<KycSleep>(input.sleep, 'sleep'),
    random: readFunction<() => number>(input.random, 'random'),
    telemetry: readTelemetry(input.telemetry),
  };
}

/**
 * Checks per-call options and returns the caller's signal, if any.
 *
 * @example
 * readCallSignal({ signal: AbortSignal.timeout(5000) }) // the signal
 */
export function readCallSignal(options: unknown): AbortSignal | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) throw refuse('call options must be an object');
  const { signal } = options as { signal?: unknown };
  if (signal === undefined) return undefined;
  // Duck-typed rather than `instanceof`: a signal from another realm or a polyfill works alike.
  const candidate = signal as Partial<AbortSignal> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.aborted !== 'boolean' ||
    typeof candidate.addEventListener !== 'function' ||
    typeof candidate.removeEventListener !== 'function'
  ) {
    throw refuse('signal must be an AbortSignal');
  }
  return signal as AbortSignal;
}

function readDuration(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw refuse(`${name} must be a positive number of milliseconds (at most ${MAX_TIMER_MS})`);
  }
  return value;
}

function readFunction<T>(value: unknown, name: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function') throw refuse(`${name} must be a function`);
  return value as T;
}

// Any HeadersInit a JavaScript caller may pass (record, pairs, Headers) ends up as one
// lower-cased record; `new Headers` also rejects names and values HTTP does not allow.
function readHeaders(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  const refused = refuse('headers must map valid HTTP header names to valid values');
  if (typeof value !== 'object' || value === null) throw refused;
  let headers: Headers;
  try {
    headers = new Headers(value as Record<string, string>);
  } catch {
    // The cause is dropped on purpose: its message may quote a header value (a token).
    throw refused;
  }
  const record: Record<string, string> = {};
  for (const [name, headerValue] of headers) record[name] = headerValue;
  return record;
}

// RFC 7617: Basic credentials are UTF-8, then base64. btoa only takes Latin-1, so go via bytes.
function toBase64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function readTelemetry(value: unknown): KycClientTelemetryOptions | false | undefined {
  if (value === undefined || value === false) return value;
  if (typeof value !== 'object' || value === null) {
    throw refuse('telemetry must be false or an object such as { tracerProvider }');
  }
  const { tracerProvider } = value as KycClientTelemetryOptions;
  if (tracerProvider !== undefined && typeof tracerProvider?.getTracer !== 'function') {
    throw refuse('telemetry.tracerProvider must be an OpenTelemetry TracerProvider');
  }
  return value as KycClientTelemetryOptions;
}
