import { randomBytes } from 'node:crypto';
import { type AttemptResult, sendAttempt, type TransportOptions } from '@kyc/delivery-engine';
import { type CheckResult, EXPECT, type ProbeRequest, probeHeaders, sampleBodies } from './endpoint-checks.js';

/** Options of {@link checkEndpoint}. */
export interface CheckEndpointOptions {
  /** The Auth Key the endpoint expects. */
  readonly authKey: string;
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

const describeResult = (result: AttemptResult) =>
  result.status !== undefined
    ? `HTTP ${result.status} in ${Math.round(result.latencyMs)} ms`
    : `${result.outcome}${result.errorMessage ? `: ${result.errorMessage}` : ''}`;

/**
 * Sends sample deliveries of both shapes to a customer endpoint, the way the service would,
 * and reports like a linter whether it is ready: valid TLS certificate, 401 without a key and
 * with a wrong key, 200 within 30 s for each shape, unknown fields tolerated, a repeated
 * delivery (same Webhook-Id header) acknowledged as a duplicate.
 *
 * @example
 * ```ts
 * const report = await checkEndpoint('https://example.com/kyc/webhook', { authKey });
 * if (!report.ok) process.exitCode = 1;
 * ```
 */
export async function checkEndpoint(url: string, options: CheckEndpointOptions): Promise<CheckReport> {
  const transport: TransportOptions = {
    ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}),
    ...(options.allowLoopback ? { allowPrivateNetworks: ['127.0.0.0/8', '::1/128'] } : {}),
    ...(options.ca?.length ? { tls: { ca: [...options.ca] } } : {}),
  };
  const bodies = sampleBodies();
  const send = (probe: ProbeRequest) => sendAttempt({ url, headers: probeHeaders(probe), body: probe.body }, transport);
  const eventId = () => `evt_check_${randomBytes(8).toString('hex')}`;
  const results: CheckResult[] = [];
  const add = (id: string, title: string, pass: boolean, detail: string) =>
    results.push({ id, title, verdict: pass ? 'pass' : 'fail', detail });

  // The first request also tells whether the endpoint can be reached over valid TLS at all.
  const missing = await send({ body: bodies.v1, eventId: eventId(), authKey: undefined });
  const reachable = missing.status !== undefined;
  add(
    'tls-certificate',
    'presents a valid TLS certificate',
    reachable,
    reachable ? 'the certificate chain and host name verified' : describeResult(missing),
  );
  if (!reachable) {
    for (const [id, title] of CHECKS_AFTER_CONNECT)
      results.push({ id, title, verdict: 'skip', detail: 'endpoint not reachable' });
    return { url, ok: false, results };
  }
  add(
    'rejects-missing-key',
    'answers 401 without an Authorization header',
    missing.status === EXPECT.unauthorized,
    describeResult(missing),
  );
  const wrongKey = `wrong-${randomBytes(18).toString('base64url')}`;
  const wrong = await send({ body: bodies.v1, eventId: eventId(), authKey: wrongKey });
  add(
    'rejects-wrong-key',
    'answers 401 to a wrong Auth Key',
    wrong.status === EXPECT.unauthorized,
    describeResult(wrong),
  );

  const v1Probe = { body: bodies.v1, eventId: eventId(), authKey: options.authKey };
  const v1 = await send(v1Probe);
  add(
    'accepts-v1',
    `answers 200 within ${EXPECT.deadlineSeconds} s to a v1 body`,
    v1.status === EXPECT.ok,
    describeResult(v1),
  );
  const status = await send({ body: bodies.status, eventId: eventId(), authKey: options.authKey });
  add(
    'accepts-status',
    `answers 200 within ${EXPECT.deadlineSeconds} s to a status body`,
    status.status === EXPECT.ok,
    describeResult(status),
  );
  const extra = await send({ body: bodies.extra, eventId: eventId(), authKey: options.authKey });
  add(
    'tolerates-unknown-fields',
    'answers 200 to a body with unknown fields',
    extra.status === EXPECT.ok,
    describeResult(extra),
  );
  const again = await send(v1Probe);
  add(
    'acknowledges-duplicate',
    'answers 200 to a repeated delivery (same Webhook-Id) without failing',
    again.status === EXPECT.ok,
    describeResult(again),
  );
  return { url, ok: results.every((r) => r.verdict !== 'fail'), results };
}

const CHECKS_AFTER_CONNECT: readonly (readonly [string, string])[] = [
  ['rejects-missing-key', 'answers 401 without an Authorization header'],
  ['rejects-wrong-key', 'answers 401 to a wrong Auth Key'],
  ['accepts-v1', 'answers 200 to a v1 body'],
  ['accepts-status', 'answers 200 to a status body'],
  ['tolerates-unknown-fields', 'answers 200 to a body with unknown fields'],
  ['acknowledges-duplicate', 'answers 200 to a repeated delivery'],
];

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
  const lines = report.results.map((r) => `  ${mark[r.verdict]} ${r.id.padEnd(width)}  ${r.title} (${r.detail})`);
  const failed = report.results.filter((r) => r.verdict === 'fail').length;
  const summary = failed === 0 ? 'all checks passed' : `${failed} check${failed === 1 ? '' : 's'} failed`;
  return `${report.url}\n${lines.join('\n')}\n\n${summary}\n`;
}
