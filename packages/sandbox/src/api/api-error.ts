import { type ApiErrorBody, type ApiErrorCode, apiErrorBodySchema } from '@kyc/contracts';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * Answers with the service API's error body `{"error": {"code", "message"}}`. Messages are
 * generic enough to leak nothing (no credentials, no other company's data).
 */
export function apiError(
  c: Context,
  status: ContentfulStatusCode,
  code: ApiErrorCode | (string & {}),
  message: string,
  extra: Readonly<Record<string, unknown>> = {},
): Response {
  const body: ApiErrorBody = apiErrorBodySchema.parse({ error: { code, message, ...extra } });
  return c.json(body, status);
}
