import type { Attributes } from '@opentelemetry/api';

/** The bounded `outcome` label of `kyc.webhook.attempts` and `kyc.webhook.attempt.duration`. */
export type AttemptMetricOutcome =
  | 'delivered'
  | 'http_status'
  | 'timeout'
  | 'network'
  | 'tls'
  | 'rejected_target'
  | 'worker_lost'
  | 'credentials';

const METRIC_OUTCOME: Readonly<Record<string, AttemptMetricOutcome>> = {
  delivered: 'delivered',
  unexpected_2xx: 'http_status',
  redirect: 'http_status',
  client_error: 'http_status',
  server_error: 'http_status',
  timeout: 'timeout',
  dns_error: 'network',
  connect_error: 'network',
  connection_reset: 'network',
  tls_error: 'tls',
  blocked_address: 'rejected_target',
  invalid_url: 'rejected_target',
  worker_lost: 'worker_lost',
  credentials_error: 'credentials',
};

/**
 * Folds the attempt log's outcome classes into the six (plus `worker_lost` and `credentials`) a dashboard
 * groups by. Unknown classes (a custom store) count as `network` rather than add a label value.
 */
export function metricOutcome(outcome: string): AttemptMetricOutcome {
  return METRIC_OUTCOME[outcome] ?? 'network';
}

/**
 * `error.type` of a failed attempt: the status code for an HTTP answer other than 200 (as
 * the HTTP semantic conventions do for 4xx/5xx; the protocol counts every other status as a
 * failure too), else the transport's outcome class (`timeout`, `dns_error`, `tls_error`,
 * `blocked_address`…). `undefined` for a delivery.
 */
export function errorType(outcome: string, status: number | undefined): string | undefined {
  if (outcome === 'delivered') return undefined;
  return status === undefined ? outcome : String(status);
}

/**
 * `url.full` as the semantic conventions ask: no credentials, and every query value replaced
 * by `REDACTED` (a company's URL may carry a token in its query). The fragment is dropped.
 */
export function redactedUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  copy.hash = '';
  if (copy.search !== '') {
    const names = [...new Set(copy.searchParams.keys())];
    copy.search = names.map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&');
  }
  return copy.href;
}

/**
 * The URL's attributes of an attempt span: `server.address`, `server.port` and `url.full`
 * (redacted). Two URL parses and a copy, about 2 µs: only for a span that is recorded.
 */
export function urlAttributes(url: URL): Attributes {
  return {
    'server.address': url.hostname.replace(/^\[|\]$/g, ''),
    'server.port': url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
    'url.full': redactedUrl(url),
  };
}

/**
 * The attributes an attempt span starts with (known before the request is sent, cheap to
 * build); {@link urlAttributes} are added once the span turns out to be recorded.
 */
export function attemptStartAttributes(input: {
  readonly eventId: string;
  readonly attempt: number;
  readonly roundAttempt: number;
  readonly sessionId: string | undefined;
  readonly companyId: string | undefined;
}): Attributes {
  const attributes: Attributes = {
    'http.request.method': 'POST',
    'kyc.webhook.event_id': input.eventId,
    'kyc.webhook.attempt': input.roundAttempt,
  };
  // Resends within one round, as the HTTP conventions count them (0 for the first send).
  if (input.roundAttempt > 1) attributes['http.request.resend_count'] = input.roundAttempt - 1;
  if (input.attempt !== input.roundAttempt) attributes['kyc.webhook.attempt_total'] = input.attempt;
  if (input.sessionId !== undefined) attributes['kyc.session.id'] = input.sessionId;
  if (input.companyId !== undefined) attributes['kyc.company.id'] = input.companyId;
  return attributes;
}
