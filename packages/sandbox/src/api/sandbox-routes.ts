import { Hono } from 'hono';
import * as z from 'zod';
import { ERROR_CODE } from '../domain/enum-values.js';
import { outcomeRequestSchema } from '../domain/outcome.js';
import type { SandboxService } from '../sandbox-service.js';
import { apiError } from './api-error.js';
import type { AuthVariables } from './basic-auth.js';
import { deliveryView } from './delivery-view.js';
import { describeIssues, readJson } from './read-json.js';

/** Paths of the sandbox-only API (not part of the service protocol). */
export const SANDBOX_API = Object.freeze({
  sessions: '/sandbox/sessions',
  settings: '/sandbox/settings',
  deliveries: '/sandbox/deliveries',
});

const settingsBodySchema = z.strictObject({
  webhookUrl: z.string().max(2048).nullable(),
  // Omitted: keep the current key; null: remove it.
  authKey: z.string().max(1024).nullable().optional(),
});

/**
 * Sandbox-only endpoints: create sessions with a chosen outcome, read and change the
 * company's webhook settings, and inspect and redeliver webhooks.
 */
export function sandboxRoutes(service: SandboxService): Hono<{ Variables: AuthVariables }> {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.post(SANDBOX_API.sessions, async (c) => {
    const body = await readJson(c);
    if (!body.ok) return apiError(c, 400, ERROR_CODE.INVALID_REQUEST, 'The body must be JSON.');
    const parsed = outcomeRequestSchema.safeParse(body.value ?? {});
    if (!parsed.success) return apiError(c, 422, ERROR_CODE.UNPROCESSABLE, describeIssues(parsed.error.issues));
    const session = service.createSession(c.get('company').id, parsed.data);
    return c.json(service.details(session), 201);
  });

  // The dashboard's Finish (spec §1 (a)) as a call, for `kyc-sandbox trigger`: same outbox, same answer.
  app.post(`${SANDBOX_API.sessions}/:id/finish`, async (c) => {
    const result = await service.finishSession(c.get('company').id, c.req.param('id'));
    if (!result) return apiError(c, 404, ERROR_CODE.SESSION_NOT_FOUND, 'No session with this id.');
    return c.json(service.details(result.session), 200);
  });

  app.get(SANDBOX_API.sessions, (c) =>
    c.json({ sessions: service.store.listSessions(c.get('company').id).map((s) => service.details(s)) }),
  );

  app.get(SANDBOX_API.settings, (c) => c.json(service.settings(c.get('company'))));

  app.put(SANDBOX_API.settings, async (c) => {
    const body = await readJson(c);
    if (!body.ok) return apiError(c, 400, ERROR_CODE.INVALID_REQUEST, 'The body must be JSON.');
    const parsed = settingsBodySchema.safeParse(body.value);
    if (!parsed.success) return apiError(c, 422, ERROR_CODE.UNPROCESSABLE, describeIssues(parsed.error.issues));
    const company = c.get('company');
    const problems = await service.updateSettings(company.id, parsed.data);
    if (problems.length > 0) {
      return apiError(c, 422, ERROR_CODE.UNPROCESSABLE, problems.map((p) => `${p.field}: ${p.message}`).join(' '), {
        fields: problems,
      });
    }
    const updated = service.store.getCompany(company.id) ?? company;
    return c.json(service.settings(updated));
  });

  app.get(SANDBOX_API.deliveries, async (c) => {
    const rows = await service.deliveries(c.get('company').id);
    return c.json({ deliveries: rows.map((row) => deliveryView(service.clock, row)) });
  });

  app.get(`${SANDBOX_API.sessions}/:id/delivery`, async (c) => {
    const session = service.store.getSession(c.get('company').id, c.req.param('id'));
    const row = session && (await service.sessionDelivery(session.id));
    if (!row) return apiError(c, 404, ERROR_CODE.NOT_FOUND, 'This session has no webhook (it is not finished).');
    return c.json(deliveryView(service.clock, row));
  });

  app.post(`${SANDBOX_API.deliveries}/:id/redeliver`, async (c) => {
    const result = await service.redeliver(c.get('company').id, c.req.param('id'));
    if (result === 'not_found') return apiError(c, 404, ERROR_CODE.NOT_FOUND, 'No delivery with this id.');
    if (result === 'in_progress') return apiError(c, 409, ERROR_CODE.CONFLICT, 'The delivery is still pending.');
    return c.json({ redelivered: true }, 202);
  });

  return app;
}
