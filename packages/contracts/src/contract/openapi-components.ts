import {
  API_ERROR_STATUS,
  API_MAX_BODY_BYTES,
  type ApiErrorCode,
  AUTH_KEY_MIN_LENGTH,
  AUTH_SCHEME,
  HEADERS,
} from '../constants.js';
import { ref } from './component-ref.js';
import { CONTRACT_SCHEMAS } from './contract-schemas.js';
import type { JsonSchema } from './convert-schema.js';
import { headerName } from './header-name.js';
import { OPERATION_ERRORS } from './operation-errors.js';
import { toJsonSchema } from './to-json-schema.js';

/** Names of the security schemes. */
export const SECURITY = Object.freeze({ serviceBasicAuth: 'serviceBasicAuth', webhookAuthKey: 'webhookAuthKey' });

/** The error answers of the service API: component name, summary and a sample message. */
export const ERROR_RESPONSES: Readonly<Record<ApiErrorCode, { name: string; summary: string; message: string }>> =
  Object.freeze({
    INVALID_REQUEST: {
      name: 'InvalidRequest',
      summary: 'The body is not JSON.',
      message: 'The body must be JSON: {"sessionId": "<id>"}.',
    },
    UNAUTHORIZED: {
      name: 'Unauthorized',
      summary: 'Missing or wrong HTTP Basic credentials.',
      message: 'Send HTTP Basic credentials of a user issued by the operator.',
    },
    FORBIDDEN: {
      name: 'Forbidden',
      summary: 'The credentials are valid but may not do this.',
      message: 'This user may not finish sessions.',
    },
    SESSION_NOT_FOUND: {
      name: 'SessionNotFound',
      summary: "No session with this id in the caller's company.",
      message: 'No session with this id.',
    },
    NOT_FOUND: { name: 'NotFound', summary: 'The API has no such path.', message: 'No such endpoint.' },
    CONFLICT: {
      name: 'Conflict',
      summary: 'The request conflicts with the current state.',
      message: 'The delivery is still pending.',
    },
    PAYLOAD_TOO_LARGE: {
      name: 'PayloadTooLarge',
      summary: `The body is over ${API_MAX_BODY_BYTES} bytes.`,
      message: `Bodies are limited to ${API_MAX_BODY_BYTES} bytes.`,
    },
    UNPROCESSABLE: {
      name: 'Unprocessable',
      summary: 'The JSON body does not have the expected shape.',
      message: 'Expected {"sessionId": "<id>"}: sessionId: Too small: expected string to have >=1 characters',
    },
    RATE_LIMITED: {
      name: 'RateLimited',
      summary: 'Too many requests (or failed logins); wait `Retry-After` seconds.',
      message: 'Too many failed logins; retry in 30 s.',
    },
    INTERNAL: {
      name: 'Internal',
      summary: 'The service failed; retrying may succeed. Quote `X-Request-Id` to support.',
      message: 'Internal error; quote request id 6f1c0b7e-2f0e-4c55-9d8a-0c6f3f1e9b21.',
    },
    UNAVAILABLE: {
      name: 'Unavailable',
      summary: 'The service is temporarily unavailable; retry after `Retry-After` seconds.',
      message: 'The service is restarting; retry in 5 s.',
    },
  });

const RETRY_AFTER_CODES: ReadonlySet<ApiErrorCode> = new Set(['RATE_LIMITED', 'UNAVAILABLE']);

function errorResponse(code: ApiErrorCode): JsonSchema {
  const { summary, message } = ERROR_RESPONSES[code];
  const headers: JsonSchema = { [headerName(HEADERS.requestId)]: ref('headers', 'RequestId') };
  if (RETRY_AFTER_CODES.has(code)) headers[headerName(HEADERS.retryAfter)] = ref('headers', 'RetryAfter');
  if (code === 'UNAUTHORIZED') headers[headerName(HEADERS.wwwAuthenticate)] = ref('headers', 'WwwAuthenticate');
  return {
    description: `HTTP ${API_ERROR_STATUS[code]} \`${code}\`: ${summary}`,
    headers,
    content: {
      'application/json': {
        schema: ref('schemas', 'ApiErrorBody'),
        example: { error: { code, message } },
      },
    },
  };
}

/**
 * The `components` of the OpenAPI document: the wire formats (generated from the zod
 * schemas), the security schemes, the shared headers and one response per API error code.
 */
export function openApiComponents(): JsonSchema {
  const schemas: Record<string, JsonSchema> = {};
  for (const entry of CONTRACT_SCHEMAS) {
    const { $schema: _dialect, ...schema } = toJsonSchema(entry);
    schemas[entry.component] = schema;
  }
  schemas.WebhookBody = {
    title: 'Completion webhook',
    description:
      'Any completion webhook body: the v1 shape, the status shape, or one body with both groups (which matches all three). Read the session id from `id` or `sessionId`.',
    anyOf: ['WebhookV1Body', 'WebhookStatusBody', 'WebhookCombinedBody'].map((name) => ref('schemas', name)),
  };
  const responses: Record<string, JsonSchema> = {};
  // Only the answers an operation gives: the other codes are listed in `ApiErrorBody`.
  const used = new Set<ApiErrorCode>(Object.values(OPERATION_ERRORS).flat());
  for (const code of used) {
    responses[ERROR_RESPONSES[code].name] = errorResponse(code);
  }
  return {
    schemas,
    responses,
    headers: {
      RequestId: {
        description: 'Identifies this request in the service logs; quote it to support.',
        required: true,
        schema: { type: 'string', examples: ['6f1c0b7e-2f0e-4c55-9d8a-0c6f3f1e9b21'] },
      },
      RetryAfter: {
        description: 'Seconds to wait before sending the request again.',
        required: true,
        schema: { type: 'integer', minimum: 0, examples: [30] },
      },
      WwwAuthenticate: {
        description: 'The authentication scheme the API expects (`Basic`).',
        required: true,
        schema: { type: 'string', examples: ['Basic realm="KYC", charset="UTF-8"'] },
      },
    },
    securitySchemes: {
      [SECURITY.serviceBasicAuth]: {
        type: 'http',
        scheme: 'basic',
        description:
          'HTTP Basic with the username and password the service operator issued, on every request (spec §1, §5).',
      },
      [SECURITY.webhookAuthKey]: {
        type: 'http',
        scheme: AUTH_SCHEME.toLowerCase(),
        description: `The company's Auth Key (at least ${AUTH_KEY_MIN_LENGTH} characters), sent by the service as \`Authorization: ${AUTH_SCHEME} <AUTH_KEY>\` on every delivery once configured (spec §5). Compare it in constant time; accept the old and the new key while you rotate. Version 1 deliveries without a configured key carry no \`Authorization\` header.`,
      },
    },
  };
}
