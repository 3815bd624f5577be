import {
  API_BASE_PATH,
  API_ERROR_STATUS,
  type ApiErrorCode,
  HEADERS,
  SESSION_FINISH_PATH,
  SESSION_PATH,
} from '../constants.js';
import { sessionIdSchema } from '../field-schemas.js';
import { sampleSessionDetails } from '../fixtures.js';
import { ref } from './component-ref.js';
import { convertSchema, type JsonSchema } from './convert-schema.js';
import { headerName } from './header-name.js';
import { ERROR_RESPONSES, SECURITY } from './openapi-components.js';
import { OPERATION_ERRORS } from './operation-errors.js';

const TAG = 'Sessions';

function errors(codes: readonly ApiErrorCode[]): JsonSchema {
  return Object.fromEntries(
    codes.map((code) => [String(API_ERROR_STATUS[code]), ref('responses', ERROR_RESPONSES[code].name)]),
  );
}

const sessionDetailsResponse = (description: string): JsonSchema => ({
  description,
  headers: { [headerName(HEADERS.requestId)]: ref('headers', 'RequestId') },
  content: { 'application/json': { schema: ref('schemas', 'SessionDetails'), example: sampleSessionDetails } },
});

/** The `paths` of the OpenAPI document: the service API that `@kyc/client` and the sandbox speak. */
export function openApiPaths(): JsonSchema {
  const idSchema = convertSchema(sessionIdSchema, 'input');
  return {
    [`${API_BASE_PATH}${SESSION_FINISH_PATH}`]: {
      post: {
        operationId: 'finishSession',
        tags: [TAG],
        summary: 'Finish a flow',
        description:
          'Ends the KYC flow and queues its completion webhook in the same transaction (spec §4.2). Idempotent: finishing a finished session answers `200` with the same details and sends no second webhook. The sandbox also accepts `{"id": "<id>"}`.',
        security: [{ [SECURITY.serviceBasicAuth]: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('schemas', 'FinishSessionRequest'),
              example: { sessionId: sampleSessionDetails.id },
            },
          },
        },
        responses: {
          '200': sessionDetailsResponse('The session, finished.'),
          ...errors(OPERATION_ERRORS.finishSession),
        },
      },
    },
    [`${API_BASE_PATH}${SESSION_PATH}/{id}`]: {
      get: {
        operationId: 'getSession',
        tags: [TAG],
        summary: 'Read a flow',
        description:
          "The details of a session: the address a webhook's `detailsURL` points at (spec §4.3). Use it to confirm a webhook that arrived without an Auth Key.",
        security: [{ [SECURITY.serviceBasicAuth]: [] }],
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            description: 'The session id (`id` or `sessionId` of the webhook), percent-encoded.',
            schema: idSchema,
            example: sampleSessionDetails.id,
          },
        ],
        responses: {
          '200': sessionDetailsResponse('The session.'),
          ...errors(OPERATION_ERRORS.getSession),
        },
      },
    },
  };
}
