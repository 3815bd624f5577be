/**
 * When and how long to wait before trying a request again. Modelled on the Stainless SDKs
 * (openai-node): exponential backoff `min(0.5 · 2ⁿ, 8) s` with full jitter, and `Retry-After`
 * honoured up to a cap. Pure functions; the client's loop applies them.
 */

/** Retries after the first attempt unless `maxRetries` says otherwise. */
export const DEFAULT_MAX_RETRIES = 2;

/** Upper bound of `maxRetries`, so a typo cannot turn into a retry storm. */
export const MAX_RETRIES_LIMIT = 10;

/** Backoff base: the first retry waits up to this long. */
export const INITIAL_RETRY_DELAY_MS = 500;

/** Backoff ceiling for any single wait. */
export const MAX_RETRY_DELAY_MS = 8000;

/**
 * The longest `Retry-After` the client waits for, in seconds (client policy, as in Stainless
 * SDKs). A longer request means "come back much later": the error is thrown at once.
 */
export const MAX_RETRY_AFTER_SECONDS = 60;

/** Statuses worth another try: timeout, rate limit and transient server failures. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/**
 * True when a response with this status may succeed if sent again.
 *
 * @example
 * isRetryableStatus(503) // true
 * isRetryableStatus(404) // false
 */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/**
 * The backoff before retry number `retryIndex` (0 for the first retry): a uniformly random
 * wait between 0 and `min(0.5 · 2ⁿ, 8)` seconds ("full jitter", so that many clients failing
 * together do not retry together).
 *
 * @param random - a source in [0, 1), `Math.random` by default; tests pass a constant.
 * @example
 * backoffDelayMs(0, () => 0.5) // 250
 * backoffDelayMs(10, () => 0.999) // just under 8000
 */
export function backoffDelayMs(retryIndex: number, random: () => number = Math.random): number {
  const ceiling = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** retryIndex, MAX_RETRY_DELAY_MS);
  const drawn = random();
  // A broken source must not turn into a NaN or negative wait; NaN waits the full ceiling.
  const fraction = Number.isNaN(drawn) ? 1 : Math.min(Math.max(drawn, 0), 1);
  return Math.round(ceiling * fraction);
}

const DELAY_SECONDS = /^\s*(\d+(?:\.\d+)?)\s*$/;

/**
 * Reads a `Retry-After` value, either delay-seconds (`"120"`) or an HTTP-date
 * (`"Wed, 21 Oct 2026 07:28:00 GMT"`), as milliseconds from `nowMs`. A date in the past
 * means "now" (0). Unreadable or absent values give `undefined` (the caller falls back to backoff).
 *
 * @example
 * parseRetryAfterMs('2') // 2000
 * parseRetryAfterMs(new Date(Date.now() + 5000).toUTCString()) // about 5000
 */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const seconds = DELAY_SECONDS.exec(value);
  if (seconds) return Math.round(Number(seconds[1]) * 1000);
  // An HTTP-date always names a weekday or month; refusing bare numbers-with-junk keeps
  // Date.parse's lenient guesses (e.g. "12abc") out.
  if (!/[a-z]{3}/i.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * True when the service asked for a wait the client will not make.
 *
 * @example
 * exceedsRetryAfterCap(61_000) // true
 */
export function exceedsRetryAfterCap(retryAfterMs: number): boolean {
  return retryAfterMs > MAX_RETRY_AFTER_SECONDS * 1000;
}
