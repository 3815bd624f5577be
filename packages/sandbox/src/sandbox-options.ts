import type { SandboxTelemetry } from './telemetry/start-telemetry.js';

/** Structured fields of a log line (ids, outcomes; never a secret). */
export type LogFields = Readonly<Record<string, unknown>>;

/** A log hook; the sandbox library never writes to the console itself. Lines never hold a secret. */
export interface SandboxLogger {
  info?(message: string, fields?: LogFields): void;
  warn?(message: string, fields?: LogFields): void;
  error?(message: string, fields?: LogFields): void;
}

/** Options of {@link createSandbox}. */
export interface SandboxOptions {
  /** Folder for the sandbox's SQLite files; created if missing. Use `':memory:'` for a throw-away sandbox. */
  readonly dataDir: string;
  /** The URL the sandbox is reached at, used in the details URL of each session (set by `startSandbox` when omitted). */
  readonly publicUrl?: string;
  /**
   * Runs the retry schedule this many times faster (60 → retries after 1 s, 5 s, 15 s). For
   * demos and tests only; 1 (the default) is the protocol's schedule.
   */
  readonly timeScale?: number;
  /**
   * Lets webhook URLs point at loopback addresses (127.0.0.0/8, ::1). Off by default: the
   * protocol requires public addresses. For local receivers in demos and tests.
   */
  readonly allowLoopbackTargets?: boolean;
  /** Extra CA certificates (PEM) the engine trusts, e.g. a local receiver's self-signed certificate. */
  readonly trustedCa?: readonly string[];
  /**
   * The key that seals the Auth Keys and signing secrets the sandbox keeps (AES-256-GCM):
   * `<id>:<base64 of 32 bytes>`, or several separated by spaces during a rotation (the first
   * seals). The CLI passes `KYC_SECRETS_KEY`. Without it the key file is used.
   */
  readonly secretsKey?: string;
  /**
   * The key file used without `secretsKey`: default `<dataDir>.key`, beside the data folder (not
   * in it, so a copy of the folder holds no key), made with a new key at the first start, mode 0600.
   */
  readonly secretsKeyFile?: string;
  /** Marks dashboard cookies `Secure`; set when the sandbox is served over HTTPS. */
  readonly secureCookies?: boolean;
  readonly logger?: SandboxLogger;
  /**
   * The wall clock signing secrets are aged and rotated by (epoch ms). Default `Date.now`;
   * injectable so a test passes a rotation's 24-hour overlap without waiting.
   */
  readonly now?: () => number;
  /**
   * The OpenTelemetry SDK from `startTelemetry()`: serves `/metrics`, and the engine reports to
   * it with `traceparent` propagation on (the sandbox shows one trace from finish to handler).
   * Without it `/metrics` answers 404 and the engine uses the global providers, if any.
   */
  readonly telemetry?: SandboxTelemetry;
}
