import {
  DEFAULT_HANDLER_TIMEOUT_MS,
  DEFAULT_IDEMPOTENCY_TTL_MS,
  HEADERS,
  SESSION_COMPLETED_EVENT,
  SIGNATURE_TOLERANCE_MS,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RESPONSE_DEADLINE_MS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_SUCCESS_STATUS,
  WEBHOOK_USER_AGENT,
} from '../constants.js';
import { sampleCombinedWebhook, sampleStatusWebhook, sampleV1Webhook } from '../fixtures.js';
import { ref } from './component-ref.js';
import type { JsonSchema } from './convert-schema.js';
import { headerName } from './header-name.js';
import { SECURITY } from './openapi-components.js';

const seconds = (ms: number) => `${ms / 1000} s`;
const minutes = (ms: number) => `${ms / 60_000} min`;

/** How delivery works, for the webhook's description: every figure comes from the constants. */
function deliveryContract(): string {
  const delays = WEBHOOK_RETRY_DELAYS_MS.map(minutes).join(', ');
  return [
    `The service POSTs this body to the company's webhook URL (HTTPS only) when a KYC flow finishes, in the dashboard or through \`POST /session/finish\` (spec §4.1, §6). It is the only event the service sends.`,
    '',
    `**Only \`${WEBHOOK_SUCCESS_STATUS}\` counts.** Answer \`${WEBHOOK_SUCCESS_STATUS}\` within ${seconds(WEBHOOK_RESPONSE_DEADLINE_MS)} (the deadline covers the whole response: connect, TLS, headers and body). Any other status (\`201\`, \`202\`, \`204\` included), a redirect (never followed), a timeout, a TLS or a network error is a failed attempt.`,
    '',
    `**Retries.** ${WEBHOOK_MAX_ATTEMPTS} attempts in all: one at once, then retries ${delays} after each failed attempt. After the last failure the delivery is \`failed\` until someone redelivers it by hand, which can happen days later.`,
    '',
    `**At least once.** The same event can arrive more than once (a retry after a lost answer, a manual redelivery). Deduplicate on \`${headerName(HEADERS.webhookId)}\`, stable across every attempt of one event; never on the session id alone, since a \`PENDING\` result followed by a manual \`APPROVED\` are two events. Keep processed ids for at least ${DEFAULT_IDEMPOTENCY_TTL_MS / 86_400_000} days. Deliveries are not ordered.`,
    '',
    `**Answer ${WEBHOOK_SUCCESS_STATUS} only for work that is done.** Move slow work to a queue; if your handler may still fail, answer an error (\`503\` with \`Retry-After\`) and let the service retry. The SDK's receiver answers \`503\` after ${seconds(DEFAULT_HANDLER_TIMEOUT_MS)} for this reason.`,
    '',
    '**Authentication.** With an Auth Key configured, every delivery carries `Authorization: Bearer <AUTH_KEY>`: reject anything else with `401`. Version 1 deliveries without a key carry no credential: confirm such an event by reading its `detailsURL` with the operator-issued credentials (after checking it points at the service).',
    '',
    "**Parsing.** Accept unknown properties. The status shape's property names are not fixed by the specification; the SDK also reads them in other casings (`session_id`, `SessionID`, `Verification Status`).",
  ].join('\n');
}

function header(name: string, description: string, schema: JsonSchema, required: boolean): JsonSchema {
  return { name: headerName(name), in: 'header', required, description, schema };
}

/** The `webhooks` of the OpenAPI document: the completion webhook the delivery engine sends. */
export function openApiWebhooks(): JsonSchema {
  return {
    [SESSION_COMPLETED_EVENT]: {
      post: {
        operationId: 'sessionCompleted',
        tags: ['Webhooks'],
        summary: 'A KYC flow finished',
        description: deliveryContract(),
        security: [{}, { [SECURITY.webhookAuthKey]: [] }],
        parameters: [
          header(
            HEADERS.userAgent,
            'The sending service and its webhook version.',
            { type: 'string', const: WEBHOOK_USER_AGENT },
            true,
          ),
          header(
            HEADERS.webhookId,
            'The event id: the same on every attempt and redelivery of one event. Your idempotency key.',
            { type: 'string', minLength: 1, examples: ['evt_2f9d1c0a7b3e4d5f'] },
            true,
          ),
          header(
            HEADERS.webhookTimestamp,
            'When this attempt was sent, in Unix seconds (Standard Webhooks).',
            { type: 'string', pattern: '^[0-9]+$', examples: ['1795256130'] },
            true,
          ),
          header(
            HEADERS.webhookAttempt,
            'Which attempt of this event this is, counting from 1.',
            { type: 'string', pattern: '^[1-9][0-9]*$', examples: ['1'] },
            false,
          ),
          header(
            HEADERS.webhookSignature,
            `Opt-in Standard Webhooks signature, sent when the company has a signing secret (\`whsec_\` + base64 key): space-separated \`v1,<base64 HMAC-SHA256 of "{${headerName(HEADERS.webhookId)}}.{${headerName(HEADERS.webhookTimestamp)}}.{raw body}">\`. Verify it over the raw bytes, with a timestamp tolerance of ${minutes(SIGNATURE_TOLERANCE_MS)}.`,
            { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
            false,
          ),
        ],
        requestBody: {
          required: true,
          description: 'The webhook body, `application/json`, in one of three shapes. Read it from the raw bytes.',
          content: {
            'application/json': {
              schema: ref('schemas', 'WebhookBody'),
              examples: {
                v1: { summary: 'v1 shape (spec §2.1)', value: sampleV1Webhook },
                status: { summary: 'Status shape (spec §2.2)', value: sampleStatusWebhook },
                both: { summary: 'Both groups in one body', value: sampleCombinedWebhook },
              },
            },
          },
        },
        responses: {
          [String(WEBHOOK_SUCCESS_STATUS)]: {
            description: `Delivered. The only answer that counts; send it within ${seconds(WEBHOOK_RESPONSE_DEADLINE_MS)}, once the event is safely processed or stored. The body is ignored.`,
          },
          '401': {
            description: 'The Auth Key is missing or wrong. A failed attempt: the service retries on its schedule.',
          },
          '503': {
            description:
              'Not processed yet (busy, or the handler is still running). A failed attempt: the service retries on its schedule.',
          },
          default: {
            description: `Any other answer, a redirect, a timeout (${seconds(WEBHOOK_RESPONSE_DEADLINE_MS)}) or a network error: a failed attempt, retried ${WEBHOOK_RETRY_DELAYS_MS.map(minutes).join(', ')} later.`,
          },
        },
      },
    },
  };
}
