import type * as z from 'zod';
import {
  sampleApiErrorBody,
  sampleCombinedWebhook,
  sampleSessionDetails,
  sampleStatusWebhook,
  sampleV1Webhook,
} from '../fixtures.js';
import {
  apiErrorBodySchema,
  finishSessionRequestSchema,
  sessionDetailsSchema,
  webhookCombinedSchema,
  webhookStatusSchema,
  webhookV1Schema,
} from '../wire-schemas.js';

/** One wire format as the machine-readable contract publishes it. */
export interface ContractSchema {
  /** File name below `schemas/`, without `.json`. */
  readonly file: string;
  /** Name under `components.schemas` of the OpenAPI document. */
  readonly component: string;
  readonly title: string;
  readonly description: string;
  readonly schema: z.ZodType;
  /** `input` for what a caller sends (extra properties allowed), `output` for what the service sends. */
  readonly io: 'input' | 'output';
  readonly examples: readonly unknown[];
}

const LOOSE =
  'Properties not listed here may appear in later versions: ignore them, never reject a body because of them.';

/** The wire formats of the contract, in the order the documentation lists them. */
export const CONTRACT_SCHEMAS: readonly ContractSchema[] = Object.freeze([
  {
    file: 'webhook-v1',
    component: 'WebhookV1Body',
    title: 'Completion webhook, v1 shape',
    description: `The completion webhook body of the specification's version 1 (§2.1). ${LOOSE}`,
    schema: webhookV1Schema,
    io: 'output',
    examples: [sampleV1Webhook],
  },
  {
    file: 'webhook-status',
    component: 'WebhookStatusBody',
    title: 'Completion webhook, status shape',
    description: `The completion webhook body of the Auth Key variant (§2.2), with the property names this SDK fixes. ${LOOSE}`,
    schema: webhookStatusSchema,
    io: 'output',
    examples: [sampleStatusWebhook],
  },
  {
    file: 'webhook-combined',
    component: 'WebhookCombinedBody',
    title: 'Completion webhook with both groups',
    description: `One completion webhook body carrying the v1 group and the status group. ${LOOSE}`,
    schema: webhookCombinedSchema,
    io: 'output',
    examples: [sampleCombinedWebhook],
  },
  {
    file: 'session-details',
    component: 'SessionDetails',
    title: 'Session details',
    description: `A session as \`GET /session/{id}\` and \`POST /session/finish\` return it: the v1 fields known so far, its \`state\` and, once known, its \`status\`. ${LOOSE}`,
    schema: sessionDetailsSchema,
    io: 'output',
    examples: [sampleSessionDetails],
  },
  {
    file: 'finish-session-request',
    component: 'FinishSessionRequest',
    title: 'Finish-session request',
    description: 'The body of `POST /session/finish`.',
    schema: finishSessionRequestSchema,
    io: 'input',
    examples: [{ sessionId: sampleV1Webhook.id }],
  },
  {
    file: 'api-error',
    component: 'ApiErrorBody',
    title: 'Service API error',
    description: `The body of every error answer of the service API. ${LOOSE}`,
    schema: apiErrorBodySchema,
    io: 'output',
    examples: [sampleApiErrorBody],
  },
] satisfies ContractSchema[]);
