import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { WEBHOOK_RESPONSE_DEADLINE_MS } from '@kyc/contracts';
import { type Dispatcher, ProxyAgent } from 'undici';
import { DeliveryEngineError } from '../delivery-engine-error.js';
import { type AddressPolicy, createAddressPolicy, InvalidAllowlistError } from '../validation/address-policy.js';
import { systemResolver } from '../validation/system-resolver.js';
import { type RejectedUrl, type VettedUrl, vetUrl, type WebhookUrlErrorCode } from '../validation/vet-url.js';
import { AbortRegistry } from './abort-registry.js';
import { AttemptAbort } from './attempt-abort.js';
import { classifyError, describeError, isUnreachable } from './classify-error.js';
import { outcomeOfStatus } from './outcome.js';
import { PoolCache } from './pool-cache.js';
import { type Exchange, postForSnippet } from './post-for-snippet.js';
import { redactSecrets } from './redact-secrets.js';
import type { AttemptOutcome, AttemptResult, OutgoingRequest, TransportOptions } from './types.js';

/** The transport as the engine holds it: a body may also be the bytes a store read. */
export interface OwnTransport {
  /** Sends one POST; never throws. `signal` aborts this attempt only (in addition to `options.signal`). */
  send(request: OutgoingRequest, signal?: AbortSignal): Promise<AttemptResult>;
  /** Closes idle connections and lets requests in flight finish. */
  close(): Promise<void>;
}

/** IP-literal and localhost verdicts remembered per transport. */
const MAX_FIXED_VERDICTS = 512;

const URL_OUTCOMES: Readonly<Record<WebhookUrlErrorCode, AttemptOutcome>> = {
  not_a_string: 'invalid_url',
  invalid_url: 'invalid_url',
  not_https: 'invalid_url',
  userinfo: 'invalid_url',
  invalid_option: 'invalid_url',
  blocked_address: 'blocked_address',
  dns_error: 'dns_error',
  dns_timeout: 'timeout',
  aborted: 'timeout',
};

function invalid(message: string, cause?: unknown): DeliveryEngineError {
  return new DeliveryEngineError('invalid_option', message, cause === undefined ? undefined : { cause });
}

function secureContextFor(ca: string | readonly string[] | undefined): SecureContext | undefined {
  if (ca === undefined) return undefined;
  const extra = typeof ca === 'string' ? [ca] : [...ca];
  // createSecureContext silently skips text that is not PEM, which would hide a wrong path or value.
  if (extra.some((pem) => typeof pem !== 'string' || !pem.includes('-----BEGIN CERTIFICATE-----'))) {
    throw invalid('tls.ca must be a PEM certificate ("-----BEGIN CERTIFICATE-----…") or an array of them');
  }
  try {
    // `ca` replaces Node's trust store, so the public roots are named again: extra CAs add trust.
    return createSecureContext({ ca: [...rootCertificates, ...extra] });
  } catch (error) {
    throw invalid('tls.ca holds a certificate that does not parse as PEM', error);
  }
}

function policyFor(allow: readonly string[] | undefined): AddressPolicy {
  try {
    return createAddressPolicy(allow);
  } catch (error) {
    if (error instanceof InvalidAllowlistError) throw invalid(error.message);
    throw error;
  }
}

function proxyFor(proxy: string | undefined, secureContext: SecureContext | undefined): ProxyAgent | undefined {
  if (proxy === undefined) return undefined;
  try {
    return new ProxyAgent({ uri: proxy, ...(secureContext === undefined ? {} : { requestTls: { secureContext } }) });
  } catch (error) {
    // The proxy URL may carry credentials: do not echo it.
    throw invalid('proxy must be an http: or https: URL', error);
  }
}

/**
 * An attempt's deadline fired. The abort waits for the next check phase, after the poll phase
 * has read whatever already arrived: a process paused past its deadline (SIGSTOP, a frozen VM, a
 * long block) finds the timer and the answer ready together, and an answer that arrived is
 * recorded as what it was. (Node 24 already polls first in the cases chaos `sigstop` plays; this
 * keeps it so.) Module-level functions with arguments: no closures allocated per attempt.
 */
function deadlineReached(abort: AttemptAbort, deadlineMs: number): void {
  setImmediate(abortOnDeadline, abort, deadlineMs);
}

function abortOnDeadline(abort: AttemptAbort, deadlineMs: number): void {
  abort.abort(new Error(`deadline of ${deadlineMs} ms ran out`), true);
}

/**
 * The engine's transport, behind the public {@link createTransport}: the same sender, whose
 * `send` also takes the body as bytes (a SQLite claim's, never decoded into a string).
 */
export function createOwnTransport(options: TransportOptions = {}): OwnTransport {
  const deadlineMs = options.deadlineMs ?? WEBHOOK_RESPONSE_DEADLINE_MS;
  if (!Number.isFinite(deadlineMs) || deadlineMs <= 0) {
    throw invalid(`deadlineMs must be a positive number of milliseconds (got ${String(deadlineMs)})`);
  }
  const policy = policyFor(options.allowPrivateNetworks);
  const resolver = options.resolver ?? systemResolver;
  const secureContext = secureContextFor(options.tls?.ca);
  const proxy = proxyFor(options.proxy, secureContext);
  const pools = new PoolCache({
    connect: secureContext === undefined ? {} : { secureContext },
    timeoutMs: deadlineMs,
  });
  const stop = options.signal;
  const stops = new AbortRegistry();

  // IP-literal and localhost URLs get the same verdict every time: remember the last few
  // hundred so the hot path skips parsing and classifying them again. Names are resolved anew.
  const fixedVerdicts = new Map<string, VettedUrl>();

  async function vet(url: unknown, abort: AttemptAbort): Promise<VettedUrl | RejectedUrl> {
    if (typeof url === 'string') {
      const known = fixedVerdicts.get(url);
      if (known !== undefined) return known;
    }
    const vetted = await vetUrl(url, {
      policy,
      resolver,
      signal: () => abort.signal(),
      abortCode: () => (abort.timedOut ? 'dns_timeout' : 'aborted'),
    });
    if (vetted.ok && vetted.fixed && typeof url === 'string') {
      if (fixedVerdicts.size >= MAX_FIXED_VERDICTS) fixedVerdicts.clear();
      fixedVerdicts.set(url, vetted);
    }
    return vetted;
  }

  async function send(request: OutgoingRequest, signal?: AbortSignal): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const abort = new AttemptAbort();
    const timer = setTimeout(deadlineReached, deadlineMs, abort, deadlineMs);
    stops.add(stop, abort);
    stops.add(signal, abort);
    let status: number | undefined;
    let dialedAddress: string | undefined;
    let exchange: Exchange | undefined;
    const unreachable: string[] = [];
    try {
      if (pools.closed) return { outcome: 'connect_error', latencyMs: 0, errorMessage: 'transport is closed' };
      const vetted = await vet(request?.url, abort);
      if (!vetted.ok) return { outcome: URL_OUTCOMES[vetted.code], latencyMs: elapsed(), errorMessage: vetted.message };
      if (abort.aborted) throw abort.reason;
      const { url } = vetted;
      const options: Dispatcher.DispatchOptions = {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: request.headers,
        body: request.body,
      };
      let responseSnippet: string | undefined;
      if (proxy !== undefined) {
        exchange = postForSnippet(proxy, options, abort);
        responseSnippet = await exchange.snippet;
      } else {
        // Dial the vetted addresses in the resolver's order; move on only when a connection
        // could not even be opened (nothing was sent, so trying the next one cannot duplicate
        // a delivery), e.g. an IPv6 answer on a host without an IPv6 route.
        for (const [index, address] of vetted.addresses.entries()) {
          dialedAddress = address.address;
          exchange = postForSnippet(pools.get(url.origin, address), options, abort);
          try {
            responseSnippet = await exchange.snippet;
            break;
          } catch (error) {
            if (abort.aborted || index === vetted.addresses.length - 1 || !isUnreachable(error)) throw error;
            unreachable.push(`${address.address} (${describeError(error)})`);
          }
        }
      }
      if (exchange === undefined || responseSnippet === undefined) {
        return { outcome: 'dns_error', latencyMs: elapsed(), errorMessage: 'no address to dial' };
      }
      status = exchange.handler.status;
      if (status === undefined) throw new Error('the answer ended before its status line');
      return {
        outcome: outcomeOfStatus(status),
        status,
        ...(dialedAddress === undefined ? {} : { dialedAddress }),
        latencyMs: elapsed(),
        responseSnippet: redactSecrets(request.headers, responseSnippet),
      };
    } catch (error) {
      status ??= exchange?.handler.status;
      const outcome: AttemptOutcome = abort.aborted ? 'timeout' : classifyError(error);
      const reason = abort.aborted ? describeError(abort.reason) : describeError(error);
      const during = status === undefined ? '' : ` (after status ${status}, while reading the body)`;
      const earlier = unreachable.length === 0 ? '' : `; before that, could not connect to ${unreachable.join(', ')}`;
      return {
        outcome,
        ...(status === undefined ? {} : { status }),
        ...(dialedAddress === undefined ? {} : { dialedAddress }),
        latencyMs: elapsed(),
        errorMessage: redactSecrets(request?.headers ?? {}, `${reason}${during}${earlier}`),
      };
    } finally {
      clearTimeout(timer);
      stops.delete(stop, abort);
      stops.delete(signal, abort);
    }
  }

  return {
    send,
    async close() {
      await Promise.all([pools.close(), proxy?.close()]);
    },
  };
}
