import { accessSync, constants, mkdirSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join, resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { WEBHOOK_RESPONSE_DEADLINE_MS } from '@kyc/contracts';
import {
  createDeliveryEngine,
  DEFAULT_LEASE_MARGIN_MS,
  type DeliveryEngine,
  DeliveryEngineError,
  type DeliveryEngineOptions,
  type Resolver,
  scaledClock,
  sqliteDeliveryStore,
  systemResolver,
} from '@kyc/delivery-engine';
import type { Hono } from 'hono';
import { LoginThrottle } from './api/login-throttle.js';
import { createApp } from './app.js';
import { LOOPBACK_NETWORKS } from './domain/loopback.js';
import { authKeyHint } from './domain/masked-auth-key.js';
import { attemptRecorder } from './engine/attempt-recorder.js';
import { createOutboxRelay } from './engine/outbox-relay.js';
import { sandboxCredentials } from './engine/sandbox-credentials.js';
import { listenUpgrade } from './listen/listen-upgrade.js';
import { ListenerHub } from './listen/listener-hub.js';
import type { ListenerInfo } from './listen/listener-session.js';
import { isListenerHost } from './listen/listener-url.js';
import { PortalService } from './portal/portal-service.js';
import { SandboxError } from './sandbox-error.js';
import type { SandboxOptions } from './sandbox-options.js';
import { SandboxService } from './sandbox-service.js';
import { SigningSecretService } from './signing/signing-secret-service.js';
import { hashPassword } from './store/password.js';
import { SandboxStore } from './store/sandbox-store.js';
import { checkReadiness } from './telemetry/check-readiness.js';
import type { Readiness } from './telemetry/ops-routes.js';

/** A sandbox service, not yet listening: mount `fetch` on any server or call {@link startSandbox}. */
export interface Sandbox {
  /** The Web-standard handler of the whole sandbox (API, sandbox API, dashboard). */
  readonly fetch: (request: Request) => Response | Promise<Response>;
  readonly app: Hono;
  readonly engine: DeliveryEngine;
  /** Issues a user (operator action). The password is stored as a scrypt hash. */
  addUser(
    username: string,
    password: string,
    options?: { company?: string },
  ): Promise<{ username: string; company: string }>;
  /** How many users exist (the CLI hints at `user add` when there are none). */
  userCount(): number;
  /** Sets the URL the sandbox is reached at (used in the details URL of each session). */
  setPublicUrl(url: string): void;
  /** What `/readyz` answers: stores reachable, migrations applied, delivery loop running. */
  readiness(): Promise<Readiness>;
  /**
   * Serves `kyc-sandbox listen`: give it the `upgrade` events of the HTTP server that serves
   * `fetch` (`startSandbox` does). Authenticates like the API, then forwards the company's
   * deliveries over the WebSocket while it is open.
   */
  readonly handleUpgrade: (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** The company's connected `kyc-sandbox listen`, if any. */
  listener(companyId: number): ListenerInfo | undefined;
  /** Starts webhook delivery and relays any events left in the outbox. */
  start(): Promise<void>;
  /**
   * Seals every stored Auth Key and signing secret again with the first key of `secretsKey`
   * (both databases, rewritten so no value sealed with an older key is left), for a rotation of
   * the secrets key: `kyc-sandbox secrets-key rotate`. Needs the delivery file to itself.
   */
  resealSecrets(): Promise<{ readonly sandbox: number; readonly deliveries: number }>;
  /** Stops the engine (attempts in flight finish) and closes the databases. */
  close(): Promise<void>;
}

/** The company a user joins when `user add` names none. */
export const DEFAULT_COMPANY = 'Sandbox Company';
const MAX_TIME_SCALE = 600;
const RELAY_INTERVAL_MS = 5000;
/** The longest lease the engine accepts (one hour). */
const MAX_LEASE_MS = 3_600_000;

/** The system resolver, except that the listeners' placeholder hosts fail at once (they never resolve). */
const sandboxResolver: Resolver = {
  resolve: (hostname, signal) =>
    isListenerHost(hostname)
      ? Promise.reject(Object.assign(new Error(`${hostname} is not a real host`), { code: 'ENOTFOUND' }))
      : systemResolver.resolve(hostname, signal),
};

function prepareDataDir(dataDir: string): void {
  if (dataDir === ':memory:') return;
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, constants.W_OK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new SandboxError(
      'data_dir',
      `cannot use the data folder ${dataDir} (${reason}); choose a writable folder with --data-dir`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Creates a sandbox KYC service: the service API, the sandbox API and the dashboard over
 * SQLite files in `dataDir`, delivering webhooks with `@kyc/delivery-engine`.
 *
 * @example
 * ```ts
 * const sandbox = await createSandbox({ dataDir: './sandbox-data' });
 * await sandbox.addUser('alice', 'a long passphrase');
 * await sandbox.start();
 * serve({ fetch: sandbox.fetch, port: 8080 }); // or: await startSandbox({ dataDir, port: 8080 })
 * ```
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const timeScale = options.timeScale ?? 1;
  if (!Number.isFinite(timeScale) || timeScale < 1 || timeScale > MAX_TIME_SCALE) {
    throw new SandboxError('invalid_option', `timeScale must be a number from 1 to ${MAX_TIME_SCALE}`);
  }
  if (typeof options.dataDir !== 'string' || options.dataDir === '') {
    throw new SandboxError('invalid_option', 'dataDir must name a folder (or ":memory:")');
  }
  prepareDataDir(options.dataDir);
  const file = (name: string) => (options.dataDir === ':memory:' ? ':memory:' : join(options.dataDir, name));
  const keyFile =
    options.dataDir === ':memory:' ? undefined : (options.secretsKeyFile ?? `${resolve(options.dataDir)}.key`);
  const store = new SandboxStore(file('sandbox.db'), { secretsKey: options.secretsKey, keyFile });
  const clock = scaledClock(timeScale);
  let deliveryStore: ReturnType<typeof sqliteDeliveryStore>;
  try {
    // The same key ring: the engine's file holds no secret the sandbox enqueued (it enqueues
    // none), but one written by an older sandbox is sealed with it at the first start.
    deliveryStore = sqliteDeliveryStore({ path: file('deliveries.db'), sealingKeys: store.sealingKeys });
  } catch (error) {
    store.close();
    throw new SandboxError('data_dir', `cannot open the delivery database: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const allowPrivateNetworks = options.allowLoopbackTargets ? LOOPBACK_NETWORKS : undefined;
  // The engine's lease is measured on the scaled clock: stretch it so it still outlasts a real
  // 30 s deadline; above ~80× the deadline itself is shortened to fit (demo use only).
  const leaseMs = Math.min(MAX_LEASE_MS, (WEBHOOK_RESPONSE_DEADLINE_MS + DEFAULT_LEASE_MARGIN_MS) * timeScale);
  const deadlineMs =
    timeScale > 1
      ? Math.max(1000, Math.min(WEBHOOK_RESPONSE_DEADLINE_MS, Math.floor(leaseMs / timeScale) - 5_000))
      : WEBHOOK_RESPONSE_DEADLINE_MS;
  // One throttle for the API, the dashboard, the listener and the secret's reveal: all take the same passwords.
  const throttle = new LoginThrottle();
  const signing = new SigningSecretService(store, options.now ?? Date.now, throttle);
  // Assigned right below; the engine only calls its hooks after start().
  let portal: PortalService | undefined;
  const hub = new ListenerHub({
    deadlineMs,
    timeScale,
    markForwarded: (eventId, attempt, listener) =>
      store.forwards.mark(eventId, attempt, listener.companyId, listener, Date.now()),
    listened: (companyId) => store.markListened(companyId, Date.now()),
    changed: (companyId) => portal?.notify(companyId),
    authKeyLast4: (companyId) => authKeyHint(store.getCompany(companyId)?.authKey),
  });
  const engineOptions: DeliveryEngineOptions = {
    store: deliveryStore,
    // The company's Auth Key and signing secrets at send time (see sandboxCredentials for why).
    credentials: sandboxCredentials(store, signing),
    clock,
    resolver: sandboxResolver,
    selectTransport: hub.selectTransport,
    ...(timeScale > 1 ? { leaseMs, deadlineMs, pollIntervalMs: 50 * timeScale } : {}),
    ...(allowPrivateNetworks ? { allowPrivateNetworks } : {}),
    ...(options.trustedCa?.length ? { tls: { ca: [...options.trustedCa] } } : {}),
    onAttempt: attemptRecorder({
      store,
      clock,
      hub,
      logger: options.logger,
      notify: (companyId) => portal?.notify(companyId),
    }),
    logger: {
      warn: (message, fields) =>
        options.logger?.warn?.(`engine: ${message} ${JSON.stringify(fields ?? {})}`, { event: 'engine', ...fields }),
      error: (message, fields) =>
        options.logger?.error?.(`engine: ${message} ${JSON.stringify(fields ?? {})}`, { event: 'engine', ...fields }),
    },
    // The sandbox shows one trace from finish to the receiver's handler: both ends are ours.
    propagateTraceContext: true,
    ...(options.telemetry && {
      telemetry: { tracerProvider: options.telemetry.tracerProvider, meterProvider: options.telemetry.meterProvider },
    }),
  };
  const engine = createDeliveryEngine(engineOptions);
  let publicUrl = options.publicUrl ?? 'http://127.0.0.1';
  const relay = createOutboxRelay(store, engine, () => Date.now(), options.logger);
  const service = new SandboxService(store, engine, clock, relay, () => publicUrl, allowPrivateNetworks);
  portal = new PortalService(
    store,
    engine,
    clock,
    () => publicUrl,
    (companyId) => hub.current(companyId),
    deadlineMs,
  );
  const upgrade = listenUpgrade(service, throttle, hub);
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let started = false;
  const readiness = () =>
    checkReadiness({
      // The sandbox's own start() (relay, portal) must also have run; the engine says the rest.
      loop: () => (started && !closed ? engine.loopHealth() : { running: false, busyMs: 0 }),
      sandboxStore: () => store.userCount(),
      // Runs the engine's migrations if they are not applied yet, then reads: both must work.
      deliveryStore: () => engine.getDelivery('readyz-probe'),
    });
  const app = createApp(service, portal, {
    secureCookies: options.secureCookies ?? false,
    throttle,
    signing,
    logger: options.logger,
    telemetry: options.telemetry,
    readiness,
  });

  return {
    fetch: app.fetch,
    app,
    engine,
    async addUser(username, password, userOptions) {
      if (!/^[\w.@-]{1,64}$/.test(username)) {
        throw new SandboxError('invalid_option', 'a username is 1–64 letters, digits, ".", "_", "-" or "@"');
      }
      if (password.length < 8) throw new SandboxError('invalid_option', 'a password has at least 8 characters');
      const company = userOptions?.company ?? DEFAULT_COMPANY;
      store.addUser(username, await hashPassword(password), company, Date.now());
      return { username, company };
    },
    userCount: () => store.userCount(),
    handleUpgrade: (request, socket, head) => {
      if (closed) {
        socket.destroy();
        return;
      }
      void upgrade(request, socket, head).catch((error: unknown) => {
        options.logger?.error?.(`listen: upgrade failed: ${(error as Error).message}`);
        socket.destroy();
      });
    },
    listener: (companyId) => hub.current(companyId),
    setPublicUrl(url) {
      publicUrl = url.replace(/\/+$/, '');
    },
    readiness,
    async start() {
      await engine.start().catch((error: unknown) => {
        if (!(error instanceof DeliveryEngineError) || !error.code.startsWith('sealing_key')) throw error;
        throw new SandboxError('secrets_key', `deliveries.db: ${error.message}`, { cause: error });
      });
      await portal?.reconcile();
      started = true;
      await relay.relay();
      // Catches events whose relay failed for a passing reason (e.g. a busy database).
      timer = setInterval(() => void relay.relay(), RELAY_INTERVAL_MS);
      timer.unref();
    },
    async resealSecrets() {
      // The engine's file first: it is refused while another process runs the sandbox, before
      // anything was sealed with the new key.
      const deliveries = await deliveryStore.resealSecrets?.();
      const sandbox = store.resealSecrets();
      return { sandbox, deliveries: deliveries?.resealed ?? 0 };
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      await relay.relay().catch(() => undefined);
      await engine.stop({ graceMs: 5000 });
      // After the engine: forwarded attempts in flight could still report through their listener.
      await hub.close();
      await deliveryStore.close();
      store.close();
    },
  };
}
