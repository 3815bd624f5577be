import { describe, expect, it } from 'vitest';
import { errorType, metricOutcome, redactedUrl } from './attempt-attributes.js';

describe('attempt attributes', () => {
  it('folds every outcome class into a bounded metric label', () => {
    expect(
      ['delivered', 'unexpected_2xx', 'redirect', 'client_error', 'server_error'].map((o) => metricOutcome(o)),
    ).toEqual(['delivered', 'http_status', 'http_status', 'http_status', 'http_status']);
    expect(
      ['timeout', 'dns_error', 'connect_error', 'connection_reset', 'tls_error'].map((o) => metricOutcome(o)),
    ).toEqual(['timeout', 'network', 'network', 'network', 'tls']);
    expect(['blocked_address', 'invalid_url', 'worker_lost', 'made_up'].map((o) => metricOutcome(o))).toEqual([
      'rejected_target',
      'rejected_target',
      'worker_lost',
      'network',
    ]);
  });

  it('names the status as error.type for an HTTP answer, else the outcome class', () => {
    expect(errorType('delivered', 200)).toBeUndefined();
    expect(errorType('unexpected_2xx', 204)).toBe('204');
    expect(errorType('server_error', 503)).toBe('503');
    expect(errorType('tls_error', undefined)).toBe('tls_error');
  });

  it('keeps no query value, credential or fragment in url.full', () => {
    expect(redactedUrl(new URL('https://u:p@a.example:8443/hook?token=abc&x=1&token=def#frag'))).toBe(
      'https://a.example:8443/hook?token=REDACTED&x=REDACTED',
    );
    expect(redactedUrl(new URL('https://a.example/hook'))).toBe('https://a.example/hook');
  });
});
