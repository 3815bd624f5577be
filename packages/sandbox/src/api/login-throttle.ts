/**
 * Slows password guessing: after `maxFailures` wrong passwords for one username within
 * `windowMs`, that username is refused (429 with Retry-After) until the window ends. Unknown
 * usernames are counted the same way, so the throttle does not reveal which users exist.
 * Per process and bounded in memory, like the sandbox.
 */
export class LoginThrottle {
  readonly #failures = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly maxFailures = 10,
    private readonly windowMs = 60 * 1000,
    private readonly maxEntries = 10_000,
  ) {}

  /** Seconds until `username` may try again, or `undefined` when it may try now. */
  retryAfterSeconds(username: string, now = Date.now()): number | undefined {
    const entry = this.#failures.get(username);
    if (!entry || entry.resetAt <= now) return undefined;
    return entry.count >= this.maxFailures ? Math.ceil((entry.resetAt - now) / 1000) : undefined;
  }

  fail(username: string, now = Date.now()): void {
    const entry = this.#failures.get(username);
    if (entry && entry.resetAt > now) {
      entry.count++;
      return;
    }
    if (this.#failures.size >= this.maxEntries) {
      for (const [key, value] of this.#failures) if (value.resetAt <= now) this.#failures.delete(key);
      if (this.#failures.size >= this.maxEntries) this.#failures.clear();
    }
    this.#failures.set(username, { count: 1, resetAt: now + this.windowMs });
  }

  succeed(username: string): void {
    this.#failures.delete(username);
  }
}
