/**
 * Types shared by the transport (one HTTPS attempt) and the engine that records its result.
 * This file is the agreed interface between `src/transport/` and `src/engine/`: fields may be
 * added, never renamed.
 */

/** One answer of a name lookup, or a parsed IP literal. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Turns a host name into its addresses. Injected so tests and hosts with their own DNS can
 * supply answers; must throw (reject) on NXDOMAIN and other lookup failures.
 *
 * @example
 * ```ts
 * const resolver: Resolver = { resolve: async () => [{ address: '93.184.216.34', family: 4 }] };
 * ```
 */
export interface Resolver {
  resolve(hostname: string, signal?: AbortSignal): Promise<ResolvedAddress[]>;
}

/** How one delivery attempt ended; only `delivered` counts as success. */
export type AttemptOutcome =
  /** Exactly 200. */
  | 'delivered'
  /** 201, 202, 204…: the spec counts only 200. */
  | 'unexpected_2xx'
  /** 3xx, never followed. */
  | 'redirect'
  /** 4xx. */
  | 'client_error'
  /** 5xx and any other status. */
  | 'server_error'
  /** The single deadline (DNS + connect + TLS + headers + body) ran out. */
  | 'timeout'
  | 'dns_error'
  | 'connect_error'
  | 'tls_error'
  | 'connection_reset'
  /** URL, host or a DNS answer failed the SSRF policy at send time. */
  | 'blocked_address'
  | 'invalid_url';

/** What to send: a POST of `body` with `headers` to `url`. */
export interface AttemptRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
}

/**
 * A request as the engine hands it to its own transport: the body may be the UTF-8 bytes a
 * store read, sent and signed as they are (a selected transport still gets a string).
 */
export interface OutgoingRequest extends Omit<AttemptRequest, 'body'> {
  body: string | Uint8Array;
}

/** What happened; never contains the Authorization value. */
export interface AttemptResult {
  outcome: AttemptOutcome;
  status?: number;
  /** The IP address actually dialled (the vetted one). */
  dialedAddress?: string;
  latencyMs: number;
  /** At most RESPONSE_SNIPPET_MAX_BYTES of the response body, decoded leniently as UTF-8. */
  responseSnippet?: string;
  /** Human-readable cause; never contains the Authorization value. */
  errorMessage?: string;
}

/** Options of `createTransport` and `sendAttempt`. */
export interface TransportOptions {
  /** Default WEBHOOK_RESPONSE_DEADLINE_MS. */
  deadlineMs?: number;
  /** Default: node:dns/promises lookup with `all: true`. */
  resolver?: Resolver;
  /** CIDR allowlist (tests, self-hosting); metadata addresses stay blocked unless named exactly. */
  allowPrivateNetworks?: readonly string[];
  /** Extra trusted CAs (self-signed test receivers). */
  tls?: { ca?: string | readonly string[] };
  /** Explicit proxy URL only; HTTP(S)_PROXY environment variables are always ignored. */
  proxy?: string;
  /** Engine stop: aborts the attempt. */
  signal?: AbortSignal;
}
