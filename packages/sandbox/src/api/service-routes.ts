import { API_BASE_PATH, SESSION_FINISH_PATH, SESSION_PATH, sessionIdSchema } from '@kyc/contracts';
import { Hono } from 'hono';
import * as z from 'zod';
import { ERROR_CODE } from '../domain/enum-values.js';
import type { SandboxService } from '../sandbox-service.js';
import { apiError } from './api-error.js';
import type { AuthVariables } from './basic-auth.js';
import { describeIssues, readJson } from './read-json.js';

// DESIGN: the body is `{"sessionId"}`; the sandbox also accepts `{"id"}` (the v1 field name).
const finishBodySchema = z.union([
  z.looseObject({ sessionId: sessionIdSchema }).transform((body) => body.sessionId),
  z.looseObject({ id: sessionIdSchema }).transform((body) => body.id),
]);

/**
 * The service API of the specification: finish a flow and read its details. Mounted behind
 * HTTP Basic; every answer is JSON and carries the request id.
 */
export function serviceRoutes(service: SandboxService): Hono<{ Variables: AuthVariables }> {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.post(`${API_BASE_PATH}${SESSION_FINISH_PATH}`, async (c) => {
    const body = await readJson(c);
    if (!body.ok) return apiError(c, 400, ERROR_CODE.INVALID_REQUEST, 'The body must be JSON: {"sessionId": "<id>"}.');
    const parsed = finishBodySchema.safeParse(body.value);
    if (!parsed.success) {
      return apiError(
        c,
        422,
        ERROR_CODE.UNPROCESSABLE,
        `Expected {"sessionId": "<id>"}: ${describeIssues(parsed.error.issues)}`,
      );
    }
    const result = await service.finishSession(c.get('company').id, parsed.data);
    if (!result) return apiError(c, 404, ERROR_CODE.SESSION_NOT_FOUND, 'No session with this id.');
    return c.json(service.details(result.session), 200);
  });

  app.get(`${API_BASE_PATH}${SESSION_PATH}/:id`, (c) => {
    const id = c.req.param('id');
    const session = sessionIdSchema.safeParse(id).success
      ? service.store.getSession(c.get('company').id, id)
      : undefined;
    if (!session) return apiError(c, 404, ERROR_CODE.SESSION_NOT_FOUND, 'No session with this id.');
    return c.json(service.details(session), 200);
  });

  return app;
}
