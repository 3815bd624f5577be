import { randomBytes } from 'node:crypto';
import { SIGNING_SECRET_PREFIX } from '@kyc/contracts';
import {
  type AttemptResult,
  DeliveryEngineError,
  sendAttempt,
  standardWebhooksSignature,
  type TransportOptions,
  validateAuthKey,
  validateWebhookUrl,
} from '@kyc/delivery-engine';
import { LOOPBACK_NETWORKS } from '../domain/loopback.js';
import { SPEC_HINTS } from './diagnose-attempt.js';
import {
  CHECKS,
  type CheckId,
  type CheckResult,
  EXPECT,
  type ProbeRequest,
  probeHeaders,
  sampleBodies,
  saysDuplicate,
} from './endpoint-checks.js';
import { fixForCheck, fixForUrl, STALE_PROBE_MINUTES } from './fix-for-check.js';

/** Options of {@link checkEndpoint}. */
export interface CheckEndpointOptions {
  /** The Auth Key the endpoint expects. */
  readonly authKey: string;
  /**
   * The endpoint's signing secret (`whsec_…`): every probe is then signed as the service signs,
   * and two more checks send a wrong signature and a stale timestamp, which must get 401.
   */
  readonly signingSecret?: string;
  /** Extra CA certificates (PEM) to trust, e.g. a staging certificate authority. */
  readonly ca?: readonly string[];
  /** Allow an endpoint on loopback (127.0.0.0/8, ::1): for checking a receiver on this machine. */
  readonly allowLoopback?: boolean;
  /** Per-request deadline (default and protocol value: 30 s). */
  readonly deadlineMs?: number;
}

/** The findings of {@link checkEndpoint}; `ok` when nothing failed. */
export interface CheckReport {
  readonly url: string;
  readonly ok: boolean;
  readonly results: readonly CheckResult[];
}

/** The checks that run only with a signing secret. */
const SIGNATURE_CHECKS: ReadonlySet<CheckId> = new Set([
  'signing-secret',
  'rejects-wrong-signature',
  'rejects-stale-signature',
]);

/** Outcomes of the first request that mean no HTTP answer came back at all. */
const UNREACHABLE = new Set(['dns_error', 'connect_error', 'timeout', 'connection_reset', 'blocked_address']);

const describeResult = (result: AttemptResult) =>
  result.status !== undefined
    ? `HTTP ${result.status} in ${Math.round(result.latencyMs)} ms`
    : `${result.outcome}${result.errorMessage ? `: ${result.errorMessage}` : ''}`;

/**
 * Sends sample deliveries of both shapes to a customer endpoint, the way the service would,
 * and reports like a linter whether it is ready: an Auth Key the service would accept, a public
 * `https:` URL, a reachable host with a valid TLS certificate, 401 without a key and with a
 * wrong key, 200 within 30 s for each shape, unknown fields tolerated, and a repeated delivery
 * (same Webhook-Id header) answered 200 as a duplicate. The key never appears in the report.
 *
 * @example
 * ```ts
 * const report = await checkEndpoint('https://example.com/kyc/webhook', { authKey });
 * if (!report.ok) process.exitCode = 1;
 * ```
 */
export async function checkEndpoint(url: string, options: CheckEndpointOptions): Promise<CheckReport> {
  const allowPrivateNetworks = options.allowLoopback ? LOOPBACK_NETWORKS : undefined;
  const transport: TransportOptions = {
    ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}),
    ...(allowPrivateNetworks ? { allowPrivateNetworks } : {}),
    ...(options.ca?.length ? { tls: { ca: [...options.ca] } } : {}),
  };
  const results: CheckResult[] = [];
  const add = (id: CheckId, pass: boolean, detail: string, answer?: AttemptResult, baseline?: AttemptResult) => {
    // With a secret every probe is signed (send, below), as the service signs.
    const diagnosis =
      pass || !answer ? undefined : fixForCheck(id, answer, baseline, options.signingSecret !== undefined);
    results.push({
      id,
      title: CHECKS[id],
      verdict: pass ? 'pass' : 'fail',
      detail,
      ...(diagnosis ? { fix: diagnosis.message } : {}),
      ...(diagnosis?.hint ? { hint: SPEC_HINTS[diagnosis.hint] } : {}),
    });
  };
  const secret = options.signingSecret;
  // The checks not run say why, after the one that stopped them. Without a secret the signature
  // checks do not apply and are left out (an endpoint need not verify signatures in v1).
  const report = (stoppedBecause = 'not run'): CheckReport => {
    for (const id of Object.keys(CHECKS) as CheckId[]) {
      if (secret === undefined && SIGNATURE_CHECKS.has(id)) continue;
      if (!results.some((r) => r.id === id)) {
        results.push({ id, title: CHECKS[id], verdict: 'skip', detail: `skipped: ${stoppedBecause}` });
      }
    }
    return { url, ok: results.every((r) => r.verdict !== 'fail'), results };
  };

  const key = validateAuthKey(options.authKey);
  add('auth-key', key.ok, key.ok ? 'at least 16 characters and not predictable' : key.message);
  if (secret !== undefined) {
    const problem = secretProblem(secret);
    add('signing-secret', problem === undefined, problem ?? 'the prefix and at least 16 key bytes in base64');
    if (problem !== undefined) return report('nothing is signed with a secret the service would refuse');
  }

  const checkedUrl = await validateWebhookUrl(url, allowPrivateNetworks ? { allowPrivateNetworks } : {});
  const urlNote = allowPrivateNetworks ? 'https; loopback allowed by --allow-loopback' : 'https, public address';
  if (!checkedUrl.ok) {
    const fix = fixForUrl(checkedUrl.code, url, allowPrivateNetworks !== undefined);
    const title = CHECKS['https-url'];
    results.push({ id: 'https-url', title, verdict: 'fail', detail: checkedUrl.message, ...(fix && { fix }) });
    return report('nothing is sent to a URL the service would refuse');
  }
  add('https-url', true, urlNote);

  const bodies = sampleBodies();
  // With a secret every probe is signed, as the service signs: a receiver that requires it accepts them.
  const send = (probe: ProbeRequest) =>
    sendAttempt({ url, headers: probeHeaders({ signingSecret: secret, ...probe }), body: probe.body }, transport);
  const eventId = () => `evt_check_${randomBytes(8).toString('hex')}`;

  // The first request also tells whether the endpoint can be reached over valid TLS at all.
  const missing = await send({ body: bodies.v1, eventId: eventId(), authKey: undefined });
  const reachable = !UNREACHABLE.has(missing.outcome) && missing.outcome !== 'invalid_url';
  add(
    'reachable',
    reachable,
    reachable ? `connected to ${missing.dialedAddress ?? 'the host'}` : describeResult(missing),
    missing,
  );
  if (!reachable) return report('the endpoint cannot be reached');
  const tlsOk = missing.status !== undefined;
  add(
    'tls-certificate',
    tlsOk,
    tlsOk ? 'the certificate chain and host name verified' : describeResult(missing),
    missing,
  );
  if (!tlsOk) return report('no request gets past the failed TLS handshake');

  add('rejects-missing-key', missing.status === EXPECT.unauthorized, describeResult(missing), missing);
  const wrongKey = `wrong-${randomBytes(18).toString('base64url')}`;
  const wrong = await send({ body: bodies.v1, eventId: eventId(), authKey: wrongKey });
  add('rejects-wrong-key', wrong.status === EXPECT.unauthorized, describeResult(wrong), wrong);
  if (secret !== undefined) {
    const forged = await send({
      body: bodies.v1,
      eventId: eventId(),
      authKey: options.authKey,
      signingSecret: `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64')}`,
    });
    add('rejects-wrong-signature', forged.status === EXPECT.unauthorized, describeResult(forged), forged);
    const stale = await send({
      body: bodies.v1,
      eventId: eventId(),
      authKey: options.authKey,
      timestampSeconds: Math.floor(Date.now() / 1000) - STALE_PROBE_MINUTES * 60,
    });
    add('rejects-stale-signature', stale.status === EXPECT.unauthorized, describeResult(stale), stale);
  }

  const v1Probe = { body: bodies.v1, eventId: eventId(), authKey: options.authKey };
  const v1 = await send(v1Probe);
  add('accepts-v1', v1.status === EXPECT.ok, describeResult(v1), v1);
  const status = await send({ body: bodies.status, eventId: eventId(), authKey: options.authKey });
  add('accepts-status', status.status === EXPECT.ok, describeResult(status), status);
  const extra = await send({ body: bodies.extra, eventId: eventId(), authKey: options.authKey });
  add('tolerates-unknown-fields', extra.status === EXPECT.ok, describeResult(extra), extra, status);

  const again = await send(v1Probe);
  const duplicateNote =
    again.status !== EXPECT.ok
      ? describeResult(again)
      : saysDuplicate(again.responseSnippet)
        ? `${describeResult(again)}, answer says duplicate`
        : `${describeResult(again)}; whether your handler ran twice for session ${bodies.v1Id} only your logs can tell`;
  add('acknowledges-duplicate', again.status === EXPECT.ok, duplicateNote, again, v1);
  return report();
}

/** Why the engine would refuse a signing secret, in its words (which never repeat the secret). */
function secretProblem(secret: string): string | undefined {
  try {
    standardWebhooksSignature(secret, 'probe', 0, '{}');
    return undefined;
  } catch (error) {
    if (error instanceof DeliveryEngineError) return error.message.replace(/^standardWebhooksSignature: /, '');
    throw error;
  }
}

/**
 * The report as linter-style lines, one per check, and a summary.
 *
 * @example
 * ```ts
 * process.stdout.write(formatCheckReport(await checkEndpoint(url, { authKey })));
 * // ✔ tls-certificate  presents a valid TLS certificate (…)
 * // ✖ rejects-missing-key  answers 401 without an Authorization header (HTTP 200 in 3 ms)
 * ```
 */
export function formatCheckReport(report: CheckReport): string {
  const mark = { pass: '✔', fail: '✖', skip: '–' } as const;
  const width = Math.max(...report.results.map((r) => r.id.length));
  const indent = ' '.repeat(width + 6);
  const lines = report.results.map(
    (r) =>
      `  ${mark[r.verdict]} ${r.id.padEnd(width)}  ${r.title} (${r.detail})${r.fix ? `\n${indent}fix: ${r.fix}` : ''}${
        r.hint ? `\n${indent}see: ${r.hint}` : ''
      }`,
  );
  const failed = report.results.filter((r) => r.verdict === 'fail').length;
  const summary = failed === 0 ? 'all checks passed' : `${failed} check${failed === 1 ? '' : 's'} failed`;
  return `${report.url}\n${lines.join('\n')}\n\n${summary}\n`;
}
