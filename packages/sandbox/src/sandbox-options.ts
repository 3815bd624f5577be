/** A log hook; the sandbox library never writes to the console itself. Lines never hold a secret. */
export interface SandboxLogger {
  info?(message: string): void;
  warn?(message: string): void;
  error?(message: string): void;
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
  /** Marks dashboard cookies `Secure`; set when the sandbox is served over HTTPS. */
  readonly secureCookies?: boolean;
  readonly logger?: SandboxLogger;
}
