import createClient from 'openapi-fetch';
import type { components, paths, webhooks } from './kyc-api.js';

/** The session details, as the generated types name them. */
export type SessionDetails = components['schemas']['SessionDetails'];
/** Any completion webhook body. */
export type WebhookBody = webhooks['session.completed']['post']['requestBody']['content']['application/json'];
/** The error body of every failed call. */
export type ApiErrorBody = components['schemas']['ApiErrorBody'];

/** What a call gave: the details, or the status and the service's error body. */
export type CallResult =
  | { readonly ok: true; readonly details: SessionDetails }
  | {
      readonly ok: false;
      readonly status: number;
      readonly error: ApiErrorBody['error'];
      readonly requestId: string | null;
    };

/**
 * A client for the KYC service built only from the published OpenAPI document: types from
 * `openapi-typescript`, calls through `openapi-fetch`. This is what a team without
 * `@kyc/client` gets from the contract; `@kyc/client` adds retries, deadlines and typed errors.
 *
 * @example
 * const kyc = createKycApiClient({ baseUrl: 'https://kyc.example.com', username, password });
 * const result = await kyc.finishSession('sess_123');
 */
export function createKycApiClient(options: {
  readonly baseUrl: string;
  readonly username: string;
  readonly password: string;
  readonly fetch?: typeof globalThis.fetch;
}) {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Basic ${btoa(`${options.username}:${options.password}`)}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const settle = (answer: { data?: SessionDetails; error?: ApiErrorBody; response: Response }): CallResult =>
    answer.data
      ? { ok: true, details: answer.data }
      : {
          ok: false,
          status: answer.response.status,
          error: answer.error?.error ?? { code: 'UNKNOWN', message: `HTTP ${answer.response.status}` },
          requestId: answer.response.headers.get('X-Request-Id'),
        };
  return {
    async finishSession(sessionId: string): Promise<CallResult> {
      return settle(await client.POST('/api/v1/kyc/session/finish', { body: { sessionId } }));
    },
    async getSession(id: string): Promise<CallResult> {
      return settle(await client.GET('/api/v1/kyc/session/{id}', { params: { path: { id } } }));
    },
  };
}
