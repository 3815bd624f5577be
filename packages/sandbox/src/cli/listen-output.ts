import { AUTH_SCHEME, HEADERS, normalizeWebhookBody, WEBHOOK_MAX_ATTEMPTS } from '@kyc/contracts';
import { diagnoseAttempt } from '../check/diagnose-attempt.js';
import { maskedAuthKey } from '../domain/masked-auth-key.js';
import type { AttemptMessage, ServerMessage } from '../listen/protocol.js';
import type { LocalAnswer } from './post-local.js';

/** The indent of a delivery's follow-up lines, under its first column. */
const INDENT = ' '.repeat(10);

/** An Authorization value as the CLI may show it: the scheme, a mask and the key's last four characters. */
export function maskAuthorization(value: string | undefined): string {
  if (value === undefined) return '(none)';
  const key = value.startsWith(`${AUTH_SCHEME} `) ? value.slice(AUTH_SCHEME.length + 1) : value;
  return `${AUTH_SCHEME} ${maskedAuthKey(key)}`;
}

/**
 * Which key the deliveries will carry, said once when the listener is ready: a receiver that
 * checks another key (or none is set) otherwise shows up only as a 401 on the first delivery.
 */
export function authorizationNotice(authKeyLast4: string | null): string {
  return authKeyLast4 === null
    ? 'No Auth Key is set, so deliveries carry no Authorization header: set one under Settings → My company → Edit, and give your receiver the same key.'
    : `Deliveries carry Authorization: ${maskAuthorization(authKeyLast4)}: your receiver must expect that key.`;
}

/** `HH:MM:SS` on the local clock: a terminal is read by the person in front of it. */
export function clockTime(at: Date): string {
  return at.toTimeString().slice(0, 8);
}

/** The session id and verification status a body carries, for the delivery line. */
function describeBody(body: string): { session: string; status: string } {
  try {
    const parsed = normalizeWebhookBody(JSON.parse(body));
    // A v1 body has no verification status: its shape says so instead.
    if (parsed.ok) return { session: parsed.webhook.sessionId, status: parsed.webhook.status ?? 'v1 body' };
  } catch {
    // Not JSON: the line says so below.
  }
  return { session: '(unreadable body)', status: '' };
}

function fixFor(answer: LocalAnswer, target: URL, headers: AttemptMessage['headers']): string | undefined {
  const authorization = headers[HEADERS.authorization];
  if ('failure' in answer) {
    if (answer.failure === 'connect_error' || answer.failure === 'dns_error') {
      return `Nothing answers at ${target.origin} on this machine (${answer.message.split(':')[0]}): start your server, or point --forward-to at the port it listens on. The delivery is retried on the schedule.`;
    }
    if (answer.failure === 'tls_error') {
      return `The TLS handshake with ${target.origin} failed (${answer.message}): use http:// for a local server, or trust its certificate with NODE_EXTRA_CA_CERTS.`;
    }
    return diagnoseAttempt({ outcome: answer.failure })?.message;
  }
  const diagnosis = diagnoseAttempt({
    outcome: '',
    status: answer.status,
    responseSnippet: answer.snippet,
    signed: headers[HEADERS.webhookSignature] !== undefined,
  });
  if (diagnosis === undefined) return undefined;
  // The only place the key appears in the terminal: masked, so the developer can tell which key was sent.
  return answer.status === 401 || answer.status === 403
    ? `${diagnosis.message} This delivery carried Authorization: ${maskAuthorization(authorization)}.`
    : diagnosis.message;
}

/**
 * One delivery as the terminal shows it: time, event id (Webhook-Id), session, its verification
 * status, the local server's answer, latency and attempt number; then, when it failed, what to
 * fix, from the same diagnostics as `check-endpoint` and the portal.
 *
 * @example
 * ```text
 * 10:15:30  evt_3f2c…  sess_81a0…  APPROVED  → 200  4 ms  attempt 1
 * 10:15:41  evt_9d0e…  sess_77c1…  PENDING   → 500  3 ms  attempt 1
 *           fix: Your handler failed (500): look in your server's logs for this Webhook-Id; …
 * ```
 */
export function formatDelivery(at: Date, message: AttemptMessage, answer: LocalAnswer, target: URL): string {
  const { session, status } = describeBody(message.body);
  const result =
    'failure' in answer
      ? `✖ ${answer.failure}${answer.status === undefined ? '' : ` after ${answer.status}`}`
      : `→ ${answer.status}`;
  const line = [
    clockTime(at),
    message.eventId,
    session,
    status.padEnd(8),
    result,
    `${Math.round(answer.latencyMs)} ms`,
    `attempt ${message.attempt}`,
  ].join('  ');
  const fix = fixFor(answer, target, message.headers);
  return fix === undefined ? `${line}\n` : `${line}\n${INDENT}fix: ${fix}\n`;
}

/** What the engine made of a forwarded attempt, when it is worth a line: a retry, a final failure, or a verdict other than the local answer. */
export function formatRecorded(
  message: Extract<ServerMessage, { type: 'recorded' }>,
  reportedStatus: number | undefined,
): string {
  const lines: string[] = [];
  const expected = reportedStatus === 200 ? 'delivered' : undefined;
  if (message.outcome !== 'delivered' && expected === 'delivered') {
    lines.push(`the service recorded attempt ${message.attempt} as ${message.outcome} (your answer came too late)`);
  }
  if (message.state === 'pending' && message.nextAttemptAt !== null) {
    lines.push(
      `↻ retry: attempt ${message.attempt + 1} at ${clockTime(new Date(message.nextAttemptAt))} (${WEBHOOK_MAX_ATTEMPTS} attempts per round)`,
    );
  }
  if (message.state === 'failed') {
    lines.push(
      `✖ ${message.eventId} failed after its last attempt: fix the cause, then Redeliver it from the dashboard (Deliveries)`,
    );
  }
  return lines.map((line) => `${INDENT}${line}\n`).join('');
}
