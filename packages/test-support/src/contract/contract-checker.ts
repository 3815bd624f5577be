import { API_BASE_PATH, AUTH_SCHEME, HEADERS, JSON_CONTENT_TYPE, SESSION_COMPLETED_EVENT } from '@kyc/contracts';
import { buildOpenApiDocument, type JsonSchema } from '@kyc/contracts/openapi';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** One answer of the service as a test saw it. */
export interface SeenResponse {
  readonly method: string;
  /** The path of the request (a query string is ignored). */
  readonly path: string;
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** One webhook delivery as a test receiver saw it. */
export interface SeenWebhook {
  readonly method: string;
  readonly headers: Headers;
  readonly body: string;
}

/** One request a caller sent to the service, as a test saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Headers;
  /** The body as sent, or `undefined` for none. */
  readonly body: string | undefined;
}

/** What the checker made of one exchange: `outside` when the document does not cover it. */
export type ContractVerdict =
  | { readonly covered: true; readonly violations: readonly string[] }
  | { readonly covered: false };

/** Checks real exchanges against the published OpenAPI document. */
export interface ContractChecker {
  /** A caller's request: its operation exists, and its body is the documented one. */
  checkRequest(request: SeenRequest): ContractVerdict;
  checkResponse(response: SeenResponse): ContractVerdict;
  checkWebhook(webhook: SeenWebhook): ContractVerdict;
}

type Operation = {
  parameters?: readonly Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, JsonSchema>;
  security?: readonly Record<string, unknown>[];
};
type Parameter = { name: string; in: string; required?: boolean; schema: JsonSchema };
type Header = { required?: boolean; schema: JsonSchema };
type Response = {
  headers?: Record<string, Header | { $ref: string }>;
  content?: Record<string, { schema: JsonSchema }>;
};

const DOCUMENT_ID = 'https://contract.kyc.test/openapi.json';

/**
 * Builds a checker over the OpenAPI document `@kyc/contracts` generates, with ajv (JSON Schema
 * 2020-12, formats on): every status, header and body of a real answer or delivery is judged by
 * the same document customers generate code from.
 *
 * @example
 * const checker = createContractChecker();
 * checker.checkWebhook({ method: 'POST', headers, body }) // { covered: true, violations: [] }
 */
export function createContractChecker(): ContractChecker {
  const document = buildOpenApiDocument() as {
    paths: Record<string, Record<string, Operation>>;
    webhooks: Record<string, Record<string, Operation>>;
    components: { schemas: JsonSchema; responses: Record<string, Response>; headers: Record<string, Header> };
  };
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats.default(ajv);
  // The document's schemas refer to each other as `#/components/schemas/…`: one schema whose
  // `components` keyword holds them all lets ajv resolve those pointers.
  ajv.addKeyword('components');
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: document.components.schemas } });
  const compiled = new Map<JsonSchema, ValidateFunction>();
  const validator = (schema: JsonSchema): ValidateFunction => {
    let validate = compiled.get(schema);
    if (!validate) {
      const ref = schema.$ref;
      validate =
        typeof ref === 'string' && ref.startsWith('#/components/schemas/')
          ? ajv.getSchema(`${DOCUMENT_ID}${ref}`)
          : ajv.compile(schema);
      if (!validate) throw new Error(`the document has no ${String(ref)}`);
      compiled.set(schema, validate);
    }
    return validate;
  };
  const deref = <T>(value: T | { $ref: string }): T => {
    if (typeof value === 'object' && value !== null && '$ref' in value) {
      const [, , kind, name] = value.$ref.split('/');
      const components = document.components as unknown as Record<string, Record<string, T>>;
      const found = kind && name ? components[kind]?.[name] : undefined;
      if (!found) throw new Error(`the document has no ${value.$ref}`);
      return found;
    }
    return value;
  };
  const judge = (schema: JsonSchema, value: unknown, where: string): string[] => {
    const validate = validator(schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => `${where}${error.instancePath}: ${error.message ?? error.keyword}`);
  };
  const headerValue = (schema: JsonSchema, raw: string): unknown =>
    schema.type === 'integer' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
  const jsonBody = (body: string, where: string, problems: string[]): unknown => {
    try {
      return JSON.parse(body);
    } catch {
      problems.push(`${where}: not JSON (${body.slice(0, 80)})`);
      return undefined;
    }
  };

  const templates = Object.keys(document.paths)
    // A concrete path wins over a template that also matches it (OpenAPI 3.1 §4.8.8).
    .sort((a, b) => Number(a.includes('{')) - Number(b.includes('{')))
    .map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\//g, '\\/')}$`),
    }));

  const operationFor = (method: string, rawPath: string) => {
    const path = rawPath.split('?')[0] ?? '';
    const match = templates.find((t) => t.pattern.test(path) && document.paths[t.template]?.[method.toLowerCase()]);
    return match ? document.paths[match.template]?.[method.toLowerCase()] : undefined;
  };

  function checkRequest(request: SeenRequest): ContractVerdict {
    const where = `${request.method} ${request.path} request`;
    if (!request.path.startsWith(`${API_BASE_PATH}/`)) return { covered: false };
    const operation = operationFor(request.method, request.path);
    if (!operation) return { covered: true, violations: [`${where}: the document has no such operation`] };
    const problems: string[] = [];
    const media = operation.requestBody?.content[JSON_CONTENT_TYPE];
    if (!media) {
      if (request.body) problems.push(`${where}: a body where the document has none`);
      return { covered: true, violations: problems };
    }
    const type = request.headers.get(HEADERS.contentType) ?? '';
    if (!type.toLowerCase().startsWith(JSON_CONTENT_TYPE)) problems.push(`${where}: content type ${type}`);
    const body = jsonBody(request.body ?? '', `${where} body`, problems);
    if (body !== undefined) problems.push(...judge(media.schema, body, `${where} body`));
    return { covered: true, violations: problems };
  }

  function checkResponse(response: SeenResponse): ContractVerdict {
    const path = response.path.split('?')[0] ?? '';
    const method = response.method.toLowerCase();
    const where = `${response.method} ${path} → ${response.status}`;
    const problems: string[] = [];
    const operation = operationFor(method, path);
    if (!operation) {
      if (!path.startsWith(`${API_BASE_PATH}/`)) return { covered: false };
      // A path or method the API does not have: still an error answer in the documented shape.
      if (response.status < 400) problems.push(`${where}: the document has no such operation`);
      const body = jsonBody(response.body, `${where} body`, problems);
      if (body !== undefined)
        problems.push(...judge({ $ref: '#/components/schemas/ApiErrorBody' }, body, `${where} body`));
      return { covered: true, violations: problems };
    }
    const declared =
      operation.responses[String(response.status)] ??
      operation.responses[`${String(response.status)[0]}XX`] ??
      operation.responses.default;
    if (!declared) return { covered: true, violations: [`${where}: status not in the document`] };
    const answer = deref<Response>(declared as Response);
    for (const [name, entry] of Object.entries(answer.headers ?? {})) {
      const header = deref<Header>(entry);
      const raw = response.headers.get(name);
      if (raw === null) {
        if (header.required) problems.push(`${where}: header ${name} missing`);
      } else problems.push(...judge(header.schema, headerValue(header.schema, raw), `${where} header ${name}`));
    }
    if (answer.content) {
      const type = response.headers.get(HEADERS.contentType) ?? '';
      const media = answer.content[JSON_CONTENT_TYPE];
      if (!media || !type.toLowerCase().startsWith(JSON_CONTENT_TYPE)) problems.push(`${where}: content type ${type}`);
      const body = jsonBody(response.body, `${where} body`, problems);
      if (media && body !== undefined) problems.push(...judge(media.schema, body, `${where} body`));
    }
    return { covered: true, violations: problems };
  }

  function checkWebhook(webhook: SeenWebhook): ContractVerdict {
    const operation = document.webhooks[SESSION_COMPLETED_EVENT]?.[webhook.method.toLowerCase()];
    const where = `webhook ${webhook.method}`;
    if (!operation) return { covered: true, violations: [`${where}: the document has no such webhook method`] };
    const problems: string[] = [];
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in !== 'header') continue;
      const raw = webhook.headers.get(parameter.name);
      if (raw === null) {
        if (parameter.required) problems.push(`${where}: header ${parameter.name} missing`);
      } else
        problems.push(
          ...judge(parameter.schema, headerValue(parameter.schema, raw), `${where} header ${parameter.name}`),
        );
    }
    // The security alternatives are "none" or the Bearer Auth Key; a credential in any other
    // form is outside the document.
    const authorization = webhook.headers.get(HEADERS.authorization);
    if (authorization !== null && !new RegExp(`^${AUTH_SCHEME} \\S+$`).test(authorization))
      problems.push(`${where}: Authorization is not "${AUTH_SCHEME} <AUTH_KEY>"`);
    const type = webhook.headers.get(HEADERS.contentType) ?? '';
    const media = operation.requestBody?.content[JSON_CONTENT_TYPE];
    if (!media || !type.toLowerCase().startsWith(JSON_CONTENT_TYPE)) problems.push(`${where}: content type ${type}`);
    const body = jsonBody(webhook.body, `${where} body`, problems);
    if (media && body !== undefined) problems.push(...judge(media.schema, body, `${where} body`));
    return { covered: true, violations: problems };
  }

  return { checkRequest, checkResponse, checkWebhook };
}
