import { API_BASE_PATH, WEBHOOK_USER_AGENT } from '../constants.js';
import type { JsonSchema } from './convert-schema.js';
import { openApiComponents } from './openapi-components.js';
import { openApiPaths } from './openapi-paths.js';
import { openApiWebhooks } from './openapi-webhooks.js';

/** The OpenAPI 3.1 document's version of the contract: the API of `/api/v1`, the webhook of `Service-Webhook/1.0`. */
const CONTRACT_VERSION = WEBHOOK_USER_AGENT.slice(WEBHOOK_USER_AGENT.indexOf('/') + 1);

const DESCRIPTION = [
  'The KYC completion webhook service: the API a customer backend calls to finish a verification flow and read its details, and the completion webhook the service sends when a flow ends.',
  '',
  `Every schema is generated from the zod schemas of \`@kyc/contracts\`, the SDK's single source of truth; the same schemas are published as standalone JSON Schema 2020-12 files (\`@kyc/contracts/schemas/*.json\`).`,
  '',
  `The API lives under \`{baseUrl}${API_BASE_PATH}\`, takes HTTP Basic credentials issued by the operator on every request, answers JSON, and gives every answer an \`X-Request-Id\`. Errors carry \`{"error": {"code", "message"}}\`; \`429\` and \`503\` carry \`Retry-After\`.`,
].join('\n');

/**
 * The OpenAPI 3.1 document of the service API and the completion webhook, generated from the
 * zod schemas and the protocol constants. `@kyc/contracts/openapi.json` is its output.
 *
 * @example
 * import { buildOpenApiDocument } from '@kyc/contracts/openapi';
 * const document = buildOpenApiDocument();
 * document.webhooks['session.completed'].post.requestBody // the webhook body
 */
export function buildOpenApiDocument(): JsonSchema {
  return {
    // No `jsonSchemaDialect`: the default (OpenAPI's base dialect) is JSON Schema 2020-12 plus
    // OpenAPI's own keywords, so every schema here is valid under it, and renderers such as
    // Swagger UI refuse any other value.
    openapi: '3.1.0',
    info: {
      title: 'KYC completion webhook service',
      version: CONTRACT_VERSION,
      summary: 'Finish KYC flows, read their results, and receive the completion webhook.',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: '{baseUrl}',
        description: 'The service base URL the operator gives you (the sandbox prints its own when it starts).',
        variables: { baseUrl: { default: 'http://127.0.0.1:8080' } },
      },
    ],
    tags: [
      { name: 'Sessions', description: 'Finish a KYC flow and read its details.' },
      { name: 'Webhooks', description: 'What the service sends to your webhook URL.' },
    ],
    paths: openApiPaths(),
    webhooks: openApiWebhooks(),
    components: openApiComponents(),
  };
}
