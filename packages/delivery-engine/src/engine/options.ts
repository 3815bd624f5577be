import { WEBHOOK_RESPONSE_DEADLINE_MS } from '@kyc/contracts';
import { DeliveryEngineError } from '../delivery-engine-error.js';
import type { AttemptRecord, DeliveryState, DeliveryStore } from '../store/store.js';
import type { DeliveryEngineTelemetryOptions } from '../telemetry/engine-telemetry.js';
import type { Resolver } from '../transport/types.js';
import type { Clock } from './clock.js';
import type { CredentialsHook } from './credentials.js';
import type { SelectTransport } from './select-transport.js';
import { signingKey } from './signing.js';

/** A structured log hook; the engine never writes to the console. Fields never hold a secret. */
export interface DeliveryEngineLogger {
  debug?(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn?(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error?(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** One recorded attempt, as the `onAttempt` hook sees it. */
export interface AttemptEvent {
  readonly deliveryId: string;
  readonly url: string;
  /** The attempt-log row just written (Authorization already redacted). */
  readonly attempt: AttemptRecord;
  /** The delivery's state after this attempt. */
  readonly state: DeliveryState;
  /** When the next attempt is due, for `pending`. */
  readonly nextAttemptAt: number | undefined;
  /** W3C `traceparent` of the attempt's span when it was recorded, to put trace ids in log lines. */
  readonly traceParent?: string | undefined;
}

/** Options of `createDeliveryEngine`. Only `store` is required. */
export interface DeliveryEngineOptions<Transaction = never> {
  readonly store: DeliveryStore<Transaction>;
  /** Time source (default: the wall clock). Inject `createManualClock()` to test the schedule. */
  readonly clock?: Clock;
  /** DNS resolver used to vet and pin each endpoint's addresses (default: the system resolver). */
  readonly resolver?: Resolver;
  /** Extra trusted CA certificates (PEM), e.g. for a self-signed test receiver. */
  readonly tls?: { readonly ca?: string | readonly string[] };
  /**
   * CIDRs that may be reached although not public, e.g. `['127.0.0.0/8', '::1/128']` for
   * loopback tests and self-hosting. Cloud metadata addresses stay blocked unless named exactly.
   */
  readonly allowPrivateNetworks?: readonly string[];
  /** An explicit HTTP proxy URL. Proxy environment variables are ignored. */
  readonly proxy?: string;
  /**
   * Attempts in flight at once in this process to endpoints that answer promptly: the prompt lane
   * (default 16). An attempt still unanswered after `slowAfterMs` leaves it for the slow lane.
   */
  readonly concurrency?: number;
  /**
   * Attempts in flight at once in this process to endpoints that hang or answer late: the slow
   * lane, which such endpoints share among themselves (default 1024, ~256 endpoints hanging at the
   * per-endpoint cap). Each is an open socket and a few kilobytes; none costs CPU while it waits.
   */
  readonly slowConcurrency?: number;
  /**
   * An attempt not answered within this many milliseconds moves to the slow lane, and its
   * endpoint counts as slow until an attempt answers within it again (default 250).
   */
  readonly slowAfterMs?: number;
  /** Attempts in flight at once per endpoint origin in this process, in both lanes together (default 4). */
  readonly perEndpointConcurrency?: number;
  /** How long a claim lasts; must exceed `deadlineMs` (default 45 000 ms). */
  readonly leaseMs?: number;
  /** The response deadline per attempt (default and protocol value: 30 000 ms). Lower it only in tests. */
  readonly deadlineMs?: number;
  /** Longest idle sleep before the store is asked again (default 1000 ms): bounds cross-process wake-up delay. */
  readonly pollIntervalMs?: number;
  /** Up to this fraction of each retry delay is added at random (default 0). Jitter never advances a retry. */
  readonly jitter?: number;
  /** Opt-in Standard Webhooks signing for every event without its own `signingSecret`. */
  readonly signing?: { readonly secret: string };
  /**
   * Gives each attempt its Auth Key and signing secrets when it is sent, from where the service
   * keeps them (see {@link CredentialsHook}): enqueue without them, and the store holds no
   * secret; a retry carries the key configured at that moment. Sync or async; a hook that
   * fails records the attempt as `credentials_error` (nothing sent, retried on the schedule).
   *
   * @example
   * ```ts
   * credentials: async ({ companyId }) => {
   *   const company = await companies.find(companyId);
   *   return { authKey: await vault.read(company.authKeyRef), signingSecrets: company.signingSecrets };
   * },
   * ```
   */
  readonly credentials?: CredentialsHook;
  /**
   * Hands an attempt to another transport instead of the engine's own HTTPS connection, e.g.
   * the sandbox's `kyc-sandbox listen` tunnel to a developer's laptop. Called before every
   * attempt with the delivery's id, `companyId`, URL and attempt number; `undefined` sends to the
   * URL as usual. The engine's rules hold for what the transport reports: one deadline
   * (`deadlineMs`; no report by then is a `timeout`), only exactly 200 is delivered, the snippet
   * is capped and cleared of the Auth Key, and the attempt is recorded and retried on the
   * schedule like any other. The engine never closes a selected transport.
   */
  readonly selectTransport?: SelectTransport;
  /** After this many lost leases in a row a delivery's attempt is recorded as `worker_lost` (default 3). */
  readonly maxWorkerLosses?: number;
  /**
   * Called after every recorded attempt. It is not awaited; errors it throws (or, for an async
   * hook, rejections) are logged and ignored.
   */
  readonly onAttempt?: (event: AttemptEvent) => void | Promise<void>;
  readonly logger?: DeliveryEngineLogger;
  /**
   * OpenTelemetry spans and metrics, through `@opentelemetry/api` when it is installed (an
   * optional peer). Default: the globally registered providers, a no-op until an SDK is
   * registered. Pass providers to use others, or `false` to turn instrumentation off.
   */
  readonly telemetry?: DeliveryEngineTelemetryOptions | false;
  /**
   * Send a W3C `traceparent` header (the attempt span's context) with every delivery. Off by
   * default: a customer's endpoint belongs to another company, and the header reveals trace ids.
   */
  readonly propagateTraceContext?: boolean;
}

/** The options with every default applied. */
export interface ResolvedOptions {
  readonly concurrency: number;
  readonly slowConcurrency: number;
  readonly slowAfterMs: number;
  readonly perEndpointConcurrency: number;
  readonly leaseMs: number;
  readonly deadlineMs: number;
  readonly pollIntervalMs: number;
  readonly jitter: number;
  readonly maxWorkerLosses: number;
  readonly propagateTraceContext: boolean;
}

/** The slow lane's size: ~256 endpoints hanging at the default per-endpoint cap of 4. */
export const DEFAULT_SLOW_CONCURRENCY = 1024;
/**
 * How long an attempt may go unanswered in the prompt lane. It bounds what endpoints that start
 * hanging can cost the others: for at most this long, their attempts hold prompt slots.
 */
export const DEFAULT_SLOW_AFTER_MS = 250;

/** Time an attempt's result needs to be written after its deadline: the lease covers both. */
export const DEFAULT_LEASE_MARGIN_MS = 15_000;

function integer(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new DeliveryEngineError(
      'invalid_option',
      `createDeliveryEngine: \`${name}\` must be an integer from ${min} to ${max}`,
    );
  }
  return value;
}

function fail(message: string): never {
  throw new DeliveryEngineError('invalid_option', `createDeliveryEngine: ${message}`);
}

/** The injectable parts (clock, resolver, hooks) are called later, deep in the loop: check their shape now. */
function checkShape<T>(options: DeliveryEngineOptions<T>): void {
  const { clock, resolver, onAttempt, logger, tls, allowPrivateNetworks, proxy } = options;
  if (options.telemetry !== undefined && options.telemetry !== false) {
    const { tracerProvider, meterProvider } = options.telemetry ?? {};
    if (tracerProvider !== undefined && typeof tracerProvider?.getTracer !== 'function') {
      fail('`telemetry.tracerProvider` must be an OpenTelemetry TracerProvider');
    }
    if (meterProvider !== undefined && typeof meterProvider?.getMeter !== 'function') {
      fail('`telemetry.meterProvider` must be an OpenTelemetry MeterProvider');
    }
  }
  if (clock !== undefined && (typeof clock?.now !== 'function' || typeof clock.sleep !== 'function')) {
    fail('`clock` must have now() and sleep(ms, signal) (see createManualClock)');
  }
  if (resolver !== undefined && typeof resolver?.resolve !== 'function') {
    fail('`resolver` must have resolve(hostname, signal)');
  }
  if (onAttempt !== undefined && typeof onAttempt !== 'function') fail('`onAttempt` must be a function');
  if (options.credentials !== undefined && typeof options.credentials !== 'function') {
    fail('`credentials` must be a function (target) => { authKey?, signingSecrets? } | undefined, or a promise of one');
  }
  if (options.selectTransport !== undefined && typeof options.selectTransport !== 'function') {
    fail('`selectTransport` must be a function (target) => Transport | undefined');
  }
  if (logger !== undefined && (logger === null || typeof logger !== 'object')) {
    fail('`logger` must be an object with optional debug, warn and error methods');
  }
  if (tls !== undefined && (tls === null || typeof tls !== 'object')) fail('`tls` must be an object such as { ca }');
  if (allowPrivateNetworks !== undefined && !Array.isArray(allowPrivateNetworks)) {
    fail("`allowPrivateNetworks` must be an array of CIDR strings such as ['127.0.0.0/8']");
  }
  if (proxy !== undefined && typeof proxy !== 'string') fail('`proxy` must be an http: or https: URL string');
  const { telemetry, propagateTraceContext } = options;
  if (telemetry !== undefined && telemetry !== false && (telemetry === null || typeof telemetry !== 'object')) {
    fail('`telemetry` must be false or an object such as { tracerProvider, meterProvider }');
  }
  if (propagateTraceContext !== undefined && typeof propagateTraceContext !== 'boolean') {
    fail('`propagateTraceContext` must be a boolean');
  }
}

/** Applies defaults and rejects impossible combinations with a typed error naming the option. */
export function resolveOptions<T>(options: DeliveryEngineOptions<T>): ResolvedOptions {
  if (options === null || typeof options !== 'object' || typeof options.store?.claim !== 'function') {
    throw new DeliveryEngineError('invalid_option', 'createDeliveryEngine: `store` must be a DeliveryStore');
  }
  const concurrency = integer('concurrency', options.concurrency, 16, 1, 1000);
  const perEndpointConcurrency = integer(
    'perEndpointConcurrency',
    options.perEndpointConcurrency,
    Math.min(4, concurrency),
    1,
    concurrency,
  );
  const deadlineMs = integer(
    'deadlineMs',
    options.deadlineMs,
    WEBHOOK_RESPONSE_DEADLINE_MS,
    1,
    WEBHOOK_RESPONSE_DEADLINE_MS,
  );
  const slowConcurrency = integer('slowConcurrency', options.slowConcurrency, DEFAULT_SLOW_CONCURRENCY, 1, 65_536);
  const slowAfterMs = integer(
    'slowAfterMs',
    options.slowAfterMs,
    Math.min(DEFAULT_SLOW_AFTER_MS, deadlineMs),
    1,
    deadlineMs,
  );
  const leaseMs = integer('leaseMs', options.leaseMs, deadlineMs + DEFAULT_LEASE_MARGIN_MS, deadlineMs + 1, 3_600_000);
  const pollIntervalMs = integer('pollIntervalMs', options.pollIntervalMs, 1000, 5, 3_600_000);
  const maxWorkerLosses = integer('maxWorkerLosses', options.maxWorkerLosses, 3, 1, 100);
  const jitter = options.jitter ?? 0;
  if (typeof jitter !== 'number' || !(jitter >= 0 && jitter <= 1)) {
    throw new DeliveryEngineError('invalid_option', 'createDeliveryEngine: `jitter` must be a number from 0 to 1');
  }
  if (options.signing !== undefined) signingKey(options.signing?.secret, 'createDeliveryEngine: `signing.secret`');
  checkShape(options);
  return {
    concurrency,
    slowConcurrency,
    slowAfterMs,
    perEndpointConcurrency,
    leaseMs,
    deadlineMs,
    pollIntervalMs,
    jitter,
    maxWorkerLosses,
    propagateTraceContext: options.propagateTraceContext === true,
  };
}
