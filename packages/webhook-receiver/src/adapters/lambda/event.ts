import { WebhookError } from '../../webhook-error.js';

/** API Gateway REST API (payload format 1.0) proxy event: the fields the adapter reads. */
export interface ApiGatewayV1Event {
  readonly httpMethod: string;
  /** Header names as the client sent them; the last value of a repeated header. May be `null`. */
  readonly headers?: Readonly<Record<string, string | undefined>> | null;
  /** Every value of every header. May be `null`. */
  readonly multiValueHeaders?: Readonly<Record<string, readonly string[] | undefined>> | null;
  readonly body?: string | null;
  readonly isBase64Encoded?: boolean;
}

/** API Gateway HTTP API (payload format 2.0) and Lambda function URL event: the fields the adapter reads. */
export interface ApiGatewayV2Event {
  readonly version: '2.0' | string;
  readonly requestContext: { readonly http: { readonly method: string } };
  /** Lower-case names; repeated headers joined with commas. */
  readonly headers?: Readonly<Record<string, string | undefined>> | null;
  readonly body?: string | null;
  readonly isBase64Encoded?: boolean;
}

/** An event from API Gateway (payload 1.0 or 2.0) or a Lambda function URL. */
export type LambdaHttpEvent = ApiGatewayV1Event | ApiGatewayV2Event;

/** The request inside a Lambda event, in the terms the receiver needs. */
export interface LambdaRequest {
  readonly method: string;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
  readonly isBase64Encoded: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function unsupported(detail: string): WebhookError {
  return new WebhookError(
    'unsupported_event',
    `The Lambda event ${detail}: toLambdaHandler takes events from API Gateway (REST API, payload 1.0; ` +
      'HTTP API, payload 2.0) and Lambda function URLs. Point only such a trigger at this function.',
  );
}

function headerMap(event: Record<string, unknown>): Map<string, string> {
  const headers = new Map<string, string>();
  const single = event.headers;
  if (single !== undefined && single !== null && !isRecord(single))
    throw unsupported('has `headers` that are not an object');
  for (const [name, value] of Object.entries(single ?? {})) {
    if (typeof value === 'string') headers.set(name.toLowerCase(), value);
  }
  // Payload 1.0 keeps every value of a repeated header here; `headers` has only the last one.
  const multi = event.multiValueHeaders;
  if (isRecord(multi)) {
    for (const [name, values] of Object.entries(multi)) {
      if (Array.isArray(values) && values.every((v) => typeof v === 'string') && values.length > 0) {
        headers.set(name.toLowerCase(), values.join(', '));
      }
    }
  }
  return headers;
}

/**
 * Reads method, headers and body out of an API Gateway (1.0 or 2.0) or function URL event.
 * Throws a `WebhookError` (`unsupported_event`) saying what is missing for anything else.
 */
export function lambdaRequestOf(event: unknown): LambdaRequest {
  if (!isRecord(event)) throw unsupported(`is ${event === null ? 'null' : typeof event}, not an object`);
  const context = event.requestContext;
  const v2Method = isRecord(context) && isRecord(context.http) ? context.http.method : undefined;
  const method = event.version === '2.0' ? v2Method : event.httpMethod;
  if (typeof method !== 'string' || method === '') {
    throw unsupported(
      event.version === '2.0' ? 'has no requestContext.http.method' : 'has neither httpMethod (1.0) nor version "2.0"',
    );
  }
  const body = event.body ?? '';
  if (typeof body !== 'string') throw unsupported('has a `body` that is not a string');
  return { method, headers: headerMap(event), body, isBase64Encoded: event.isBase64Encoded === true };
}
