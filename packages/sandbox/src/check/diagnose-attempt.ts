import {
  AUTH_SCHEME,
  SIGNATURE_TOLERANCE_MS,
  WEBHOOK_RESPONSE_DEADLINE_MS,
  WEBHOOK_SUCCESS_STATUS,
} from '@kyc/contracts';

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
const TOLERANCE_MINUTES = SIGNATURE_TOLERANCE_MS / 1000 / 60;

/** What is known of one attempt: its outcome, and when an answer came, its status and the start of its body. */
export interface AttemptToDiagnose {
  readonly outcome: string;
  readonly status?: number | undefined;
  /** The start of the answer's body, as the attempt log keeps it. */
  readonly responseSnippet?: string | undefined;
  /** Whether the attempt carried a `webhook-signature` (`undefined`: not known). */
  readonly signed?: boolean | undefined;
}

/**
 * A refusal that speaks of the signature, not of the Auth Key: our receiver's codes
 * (`missing_signature`, `stale_signature`, `invalid_signature`) and the words other Standard
 * Webhooks verifiers answer with ("No matching signature found", "Invalid Signature").
 */
const SIGNATURE_REFUSAL = /signature/i;
/** …about the signature's timestamp rather than its value. */
const STALE_REFUSAL = /stale|timestamp|too old|too new|expired|tolerance/i;

/** The fix for a 401/403 whose answer says it refused the signature, not the key. */
function forSignatureRefusal(status: number, snippet: string, signed: boolean | undefined): Diagnosis {
  if (signed === false) {
    return {
      message: `Your endpoint refused the delivery for its signature (${status}), and this attempt was not signed: give the company a signing secret (Settings → Signing secret), or stop requiring webhook-signature on the endpoint.`,
      hint: 'authentication',
    };
  }
  if (STALE_REFUSAL.test(snippet)) {
    return {
      message: `Your endpoint refused the signature's timestamp (${status}): webhook-timestamp is the time of sending, so the endpoint's clock is more than ${TOLERANCE_MINUTES} minutes off; synchronise it (NTP).`,
      hint: 'authentication',
    };
  }
  return {
    message: `Your endpoint refused the webhook signature (${status}), not the Auth Key${
      signed === true
        ? ': this attempt was signed with the current signing secret, so the endpoint may hold an old one'
        : ''
    }. Give it the current secret (Settings → Signing secret → Reveal), and during a rotation the old and the new one (signingSecrets: [new, old]).`,
    hint: 'authentication',
  };
}

function forStatus(status: number, snippet: string | undefined, signed: boolean | undefined): Diagnosis {
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
  if ((status === 401 || status === 403) && snippet !== undefined && SIGNATURE_REFUSAL.test(snippet)) {
    return forSignatureRefusal(status, snippet, signed);
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
 * matching troubleshooting hint; `undefined` for a delivered attempt. A 401 or 403 is read with
 * its answer: one that speaks of the signature is about the signing secret (an old one on the
 * endpoint, when the attempt was signed), not about the Auth Key.
 *
 * @example
 * ```ts
 * diagnoseAttempt({ outcome: 'unexpected_2xx', status: 204 })?.message;
 * // "Your endpoint answered 204, but only 200 counts as delivered, … return 200 explicitly."
 * ```
 */
export function diagnoseAttempt(attempt: AttemptToDiagnose): Diagnosis | undefined {
  if (attempt.status === WEBHOOK_SUCCESS_STATUS) return undefined;
  if (attempt.status !== undefined) return forStatus(attempt.status, attempt.responseSnippet, attempt.signed);
  return (
    BY_OUTCOME[attempt.outcome] ?? {
      message: `The attempt failed (${attempt.outcome}): check that your endpoint is reachable and answers ${WEBHOOK_SUCCESS_STATUS}.`,
      hint: 'no-webhooks',
    }
  );
}
