import { AUTH_SCHEME, WEBHOOK_RESPONSE_DEADLINE_MS, WEBHOOK_SUCCESS_STATUS } from '@kyc/contracts';

/** The troubleshooting hints of the specification (§7), by the failure they address. */
export const SPEC_HINTS = Object.freeze({
  'no-webhooks': 'No webhooks received: check the URL and server reachability (spec §7).',
  authentication: 'Authentication failures: check the Auth Key and the format of the Authorization header (spec §7).',
  timeouts: 'Timeouts: answer faster and move heavy work to background jobs (spec §7).',
  json: 'JSON errors: validate that fields exist before use (spec §7).',
});
export type SpecHint = keyof typeof SPEC_HINTS;

/** What went wrong with one attempt and what the integrator should change. */
export interface Diagnosis {
  /** One sentence: the cause and the fix. */
  readonly message: string;
  /** The specification's matching troubleshooting hint, when one fits. */
  readonly hint: SpecHint | undefined;
}

const SECONDS = WEBHOOK_RESPONSE_DEADLINE_MS / 1000;

function forStatus(status: number): Diagnosis {
  if (status >= 200 && status < 300) {
    return {
      message: `Your endpoint answered ${status}, but only ${WEBHOOK_SUCCESS_STATUS} counts as delivered, so the service retries it: return ${WEBHOOK_SUCCESS_STATUS} explicitly.`,
      hint: undefined,
    };
  }
  if (status >= 300 && status < 400) {
    return {
      message: `Your endpoint redirected (${status}) and redirects are never followed: save the final https:// URL, exact path included, in Settings.`,
      hint: 'no-webhooks',
    };
  }
  if (status === 401 || status === 403) {
    return {
      message: `Your endpoint refused the credentials (${status}): it must accept the header "Authorization: ${AUTH_SCHEME} <Auth Key>" (the word ${AUTH_SCHEME}, one space, the key exactly as saved in Settings).`,
      hint: 'authentication',
    };
  }
  if (status === 404 || status === 405) {
    return {
      message: `Nothing answers POST at this URL (${status}): check the webhook URL's path and that the route accepts POST.`,
      hint: 'no-webhooks',
    };
  }
  if (status === 413) {
    return {
      message: 'Your endpoint refused the body as too large (413): raise its body limit to at least 1 MiB.',
      hint: undefined,
    };
  }
  if (status === 400 || status === 422) {
    return {
      message: `Your endpoint rejected the body (${status}): read only the fields you need, check that they exist before use, and ignore unknown ones.`,
      hint: 'json',
    };
  }
  if (status === 409 || status === 429 || status === 503) {
    return {
      message: `Your endpoint asked to be called again later (${status}); the service retries on its schedule. If it lasts, answer ${WEBHOOK_SUCCESS_STATUS} once the event is stored and process it in a background job.`,
      hint: 'timeouts',
    };
  }
  if (status >= 500) {
    return {
      message: `Your handler failed (${status}): look in your server's logs for this Webhook-Id; if the body caused it, check that fields exist before use.`,
      hint: 'json',
    };
  }
  return {
    message: `Your endpoint answered ${status}; only ${WEBHOOK_SUCCESS_STATUS} counts as delivered.`,
    hint: undefined,
  };
}

const BY_OUTCOME: Readonly<Record<string, Diagnosis>> = {
  timeout: {
    message: `No complete answer within ${SECONDS} s: answer ${WEBHOOK_SUCCESS_STATUS} first and move the work to a background job.`,
    hint: 'timeouts',
  },
  dns_error: {
    message: "The webhook URL's host name does not resolve: check its spelling and your DNS records.",
    hint: 'no-webhooks',
  },
  connect_error: {
    message:
      'Nothing accepted the connection: check that your server is running and reachable from the internet on this port (firewall, security group).',
    hint: 'no-webhooks',
  },
  tls_error: {
    message:
      'The TLS handshake failed: serve a certificate that is valid for this host name, not expired, from a public CA, with its full chain.',
    hint: 'no-webhooks',
  },
  connection_reset: {
    message:
      'The connection closed before a complete answer: check the proxy or load balancer in front of your endpoint and its timeouts.',
    hint: 'no-webhooks',
  },
  blocked_address: {
    message: 'The host resolves to a private or reserved address: the service only delivers to public addresses.',
    hint: 'no-webhooks',
  },
  invalid_url: {
    message: 'The saved webhook URL is not valid: save a public https:// URL in Settings.',
    hint: 'no-webhooks',
  },
  worker_lost: {
    message: 'The service lost this attempt (its worker stopped); nothing to change on your side, it is retried.',
    hint: undefined,
  },
};

/**
 * Names the cause of a failed attempt and its fix in one sentence, with the specification's
 * matching troubleshooting hint; `undefined` for a delivered attempt.
 *
 * @example
 * ```ts
 * diagnoseAttempt({ outcome: 'unexpected_2xx', status: 204 })?.message;
 * // "Your endpoint answered 204, but only 200 counts as delivered, … return 200 explicitly."
 * ```
 */
export function diagnoseAttempt(attempt: { outcome: string; status?: number | undefined }): Diagnosis | undefined {
  if (attempt.status === WEBHOOK_SUCCESS_STATUS) return undefined;
  if (attempt.status !== undefined) return forStatus(attempt.status);
  return (
    BY_OUTCOME[attempt.outcome] ?? {
      message: `The attempt failed (${attempt.outcome}): check that your endpoint is reachable and answers ${WEBHOOK_SUCCESS_STATUS}.`,
      hint: 'no-webhooks',
    }
  );
}
