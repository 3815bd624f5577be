import { HEADERS } from '@kyc/contracts';
import type { Context } from 'hono';
import { Hono } from 'hono';
import * as z from 'zod';
import { ERROR_CODE, PAYLOAD_SHAPES } from '../domain/enum-values.js';
import { parseDeliveryQuery } from '../portal/delivery-query.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../portal/portal-action-store.js';
import { type Actor, PortalActionError, type PortalService } from '../portal/portal-service.js';
import { apiError } from './api-error.js';
import type { AuthVariables } from './basic-auth.js';
import { describeIssues, readJson } from './read-json.js';

/** Paths of the portal's JSON API (HTTP Basic, like the rest of `/sandbox`). */
export const PORTAL_API = Object.freeze({
  deliveries: '/sandbox/portal/deliveries',
  replayFailed: '/sandbox/portal/replay-failed',
  testEvents: '/sandbox/portal/test-events',
  health: '/sandbox/portal/health',
  forwarding: '/sandbox/portal/forwarding',
});

/** The header that makes a state-changing call idempotent: one value per click. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

const replayBodySchema = z.strictObject({ since: z.iso.datetime({ offset: true }) });
const testEventBodySchema = z.strictObject({ shape: z.enum(PAYLOAD_SHAPES).default('both') });

/** The acting user and company of an authenticated request. */
export const actorOf = (c: { get(key: 'user'): AuthVariables['user'] }): Actor => {
  const user = c.get('user');
  return { companyId: user.companyId, userId: user.id, username: user.username };
};

/** Maps a refused action to its status; anything else is a 500 from the app's error handler. */
export function actionErrorStatus(error: PortalActionError): 404 | 409 | 422 {
  if (error.code === 'not_found') return 404;
  if (error.code === 'key_reused') return 422;
  return 409;
}

/**
 * A state-changing call must be JSON (an HTML form on another site cannot send that without a
 * CORS preflight, which this API never grants) and name its click with an Idempotency-Key.
 */
function checkAction(c: Context): Response | string {
  const type = c.req.header(HEADERS.contentType) ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    return apiError(c, 415, ERROR_CODE.INVALID_REQUEST, 'Send the body as application/json.');
  }
  const key = c.req.header(IDEMPOTENCY_KEY_HEADER) ?? '';
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    return apiError(
      c,
      400,
      ERROR_CODE.INVALID_REQUEST,
      'Send an Idempotency-Key header (16–128 letters, digits, "_" or "-"), one per click.',
    );
  }
  return key;
}

/**
 * The webhook portal's JSON API: the delivery log with filters and keyset pages, one
 * delivery with its request and every attempt, redeliver, replay failed, test events and
 * endpoint health. Everything the portal pages show comes from these same calls.
 */
export function portalRoutes(portal: PortalService): Hono<{ Variables: AuthVariables }> {
  const app = new Hono<{ Variables: AuthVariables }>();
  const refused = (c: Context, error: unknown) => {
    if (!(error instanceof PortalActionError)) throw error;
    return apiError(c, actionErrorStatus(error), error.code.toUpperCase(), error.message);
  };

  app.get(PORTAL_API.deliveries, (c) => {
    const parsed = parseDeliveryQuery(c.req.query());
    if (!parsed.ok) return apiError(c, 400, ERROR_CODE.INVALID_REQUEST, describeIssues(parsed.issues));
    return c.json(portal.list(actorOf(c), parsed.query, parsed.filter));
  });

  app.get(`${PORTAL_API.deliveries}/:id`, async (c) => {
    const detail = await portal.detail(actorOf(c), c.req.param('id'));
    if (!detail) return apiError(c, 404, 'NOT_FOUND', 'No delivery with this id.');
    return c.json(detail);
  });

  app.post(`${PORTAL_API.deliveries}/:id/redeliver`, async (c) => {
    const key = checkAction(c);
    if (typeof key !== 'string') return key;
    try {
      return c.json(await portal.redeliver(actorOf(c), c.req.param('id'), key), 202);
    } catch (error) {
      return refused(c, error);
    }
  });

  app.get(PORTAL_API.replayFailed, (c) => {
    const parsed = replayBodySchema.safeParse({ since: c.req.query('since') });
    if (!parsed.success) return apiError(c, 400, ERROR_CODE.INVALID_REQUEST, describeIssues(parsed.error.issues));
    return c.json(portal.failedSince(actorOf(c), Date.parse(parsed.data.since)));
  });

  app.post(PORTAL_API.replayFailed, async (c) => {
    const key = checkAction(c);
    if (typeof key !== 'string') return key;
    const body = await readJson(c);
    if (!body.ok) return apiError(c, 400, ERROR_CODE.INVALID_REQUEST, 'The body must be JSON.');
    const parsed = replayBodySchema.safeParse(body.value);
    if (!parsed.success) return apiError(c, 422, ERROR_CODE.UNPROCESSABLE, describeIssues(parsed.error.issues));
    try {
      return c.json(await portal.replayFailed(actorOf(c), Date.parse(parsed.data.since), key), 202);
    } catch (error) {
      return refused(c, error);
    }
  });

  app.post(PORTAL_API.testEvents, async (c) => {
    const key = checkAction(c);
    if (typeof key !== 'string') return key;
    const body = await readJson(c);
    if (!body.ok) return apiError(c, 400, ERROR_CODE.INVALID_REQUEST, 'The body must be JSON.');
    const parsed = testEventBodySchema.safeParse(body.value ?? {});
    if (!parsed.success) return apiError(c, 422, ERROR_CODE.UNPROCESSABLE, describeIssues(parsed.error.issues));
    try {
      return c.json(await portal.sendTestEvent(actorOf(c), parsed.data.shape, key), 200);
    } catch (error) {
      return refused(c, error);
    }
  });

  app.get(PORTAL_API.health, (c) => c.json(portal.health(actorOf(c))));

  app.get(PORTAL_API.forwarding, (c) => c.json({ forwarding: portal.forwarding(actorOf(c)) }));

  return app;
}
