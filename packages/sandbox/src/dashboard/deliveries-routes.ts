import { Hono } from 'hono';
import { html } from 'hono/html';
import { streamSSE } from 'hono/streaming';
import { actionErrorStatus } from '../api/portal-routes.js';
import { describeIssues } from '../api/read-json.js';
import { parseDeliveryQuery } from '../portal/delivery-query.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../portal/portal-action-store.js';
import { type ActionResult, type Actor, PortalActionError, type PortalService } from '../portal/portal-service.js';
import type { DashboardVariables } from './dashboard-auth.js';
import { deliveriesPage, deliveryRows, replayConfirmPage } from './deliveries-page.js';
import { deliveryPage } from './delivery-page.js';
import { layout } from './layout.js';

const LIVE_PATH = '/dashboard/deliveries/events';
const HEARTBEAT_MS = 15_000;
const DATETIME_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

type Ctx = { get(key: 'user'): DashboardVariables['user']; get(key: 'csrfToken'): string };
const actor = (c: Ctx): Actor => {
  const user = c.get('user');
  return { companyId: user.companyId, userId: user.id, username: user.username };
};
const nav = (c: Ctx) => ({ csrfToken: c.get('csrfToken'), username: c.get('user').username });

/** What a finished click says on the page it redirects to. */
export function describeAction(result: ActionResult | undefined): string | undefined {
  if (!result) return undefined;
  if (result.action === 'redeliver') {
    return result.outcome === 'queued'
      ? 'Redelivery queued: a new round of attempts starts now.'
      : 'The delivery is still being attempted; redeliver once it has ended.';
  }
  if (result.action === 'replay_failed') {
    return `Replay queued ${result.queued} failed ${result.queued === 1 ? 'delivery' : 'deliveries'} for a new round of attempts${
      result.skipped ? ` (${result.skipped} already in progress)` : ''
    }. Below: ${result.queued === 1 ? 'that delivery' : 'those deliveries'}, their states updating live.`;
  }
  return undefined;
}

/** `YYYY-MM-DDTHH:MM` from a datetime-local field, read as UTC; `undefined` when malformed. */
function parseSince(value: unknown): number | undefined {
  if (typeof value !== 'string' || !DATETIME_LOCAL.test(value)) return undefined;
  const ms = Date.parse(`${value}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The Deliveries pages: the filtered, paged, live delivery log, Replay failed with a
 * confirmation step, and the inspector of one delivery with Redeliver. Each renders the same
 * data the portal API returns for the same request.
 */
export function deliveriesRoutes(portal: PortalService): Hono<{ Variables: DashboardVariables }> {
  const app = new Hono<{ Variables: DashboardVariables }>();

  app.get('/dashboard/deliveries', (c) => {
    const parsed = parseDeliveryQuery(c.req.query());
    if (!parsed.ok) {
      const message = `These filters are not valid: ${describeIssues(parsed.issues)}.`;
      return c.html(
        layout(
          'Deliveries',
          html`<p class="error" role="alert">${message}</p><p><a href="/dashboard/deliveries">Show all deliveries</a></p>`,
          nav(c),
        ),
        400,
      );
    }
    const page = portal.list(actor(c), parsed.query, parsed.filter);
    if (c.req.query('fragment') === 'rows') return c.html(deliveryRows(page));
    const done = c.req.query('done');
    const notice = done ? describeAction(portal.actionResult(actor(c), done)) : undefined;
    return c.html(
      layout(
        'Deliveries',
        deliveriesPage(page, c.get('csrfToken'), notice, LIVE_PATH, portal.forwarding(actor(c))),
        nav(c),
      ),
    );
  });

  app.get(LIVE_PATH, (c) =>
    streamSSE(c, async (stream) => {
      const companyId = c.get('company').id;
      let dirty = false;
      let wake: (() => void) | undefined;
      const onChange = (event: Event) => {
        if ((event as CustomEvent<number>).detail !== companyId) return;
        dirty = true;
        wake?.();
      };
      portal.changes.addEventListener('change', onChange);
      stream.onAbort(() => {
        portal.changes.removeEventListener('change', onChange);
        wake?.();
      });
      await stream.writeSSE({ event: 'ready', data: '' });
      // Bounded by the connection: ends when the browser leaves the page.
      while (!stream.aborted) {
        if (!dirty) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, HEARTBEAT_MS);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        wake = undefined;
        if (stream.aborted) break;
        if (dirty) {
          dirty = false;
          await stream.writeSSE({ event: 'change', data: '' });
        } else {
          await stream.write(': keep-alive\n\n');
        }
      }
    }),
  );

  app.post('/dashboard/deliveries/replay-failed', async (c) => {
    const form = await c.req.parseBody();
    const since = parseSince(form.since);
    if (since === undefined) return c.text('Give the time to replay from as YYYY-MM-DDTHH:MM (UTC).', 422);
    const { failed } = portal.failedSince(actor(c), since);
    const iso = new Date(since).toISOString();
    return c.html(layout('Replay failed deliveries', replayConfirmPage(iso, failed, c.get('csrfToken')), nav(c)));
  });

  app.post('/dashboard/deliveries/replay-failed/confirm', async (c) => {
    const form = await c.req.parseBody();
    const since = typeof form.since === 'string' ? Date.parse(form.since) : Number.NaN;
    const key = typeof form._click === 'string' ? form._click : '';
    if (Number.isNaN(since) || !IDEMPOTENCY_KEY_PATTERN.test(key))
      return c.text('Start the replay again from the Deliveries page.', 422);
    try {
      await portal.replayFailed(actor(c), since, key);
    } catch (error) {
      if (!(error instanceof PortalActionError)) throw error;
      return c.text(error.message, actionErrorStatus(error));
    }
    // Exactly the deliveries this replay queued, whatever their state now: they go from Failed to
    // Retrying to Delivered as the rows update. (The Failed filter would show "No deliveries
    // match" right under "Replay queued N": they are no longer failed.)
    return c.redirect(`/dashboard/deliveries?replay=${key}&done=${key}`, 303);
  });

  app.get('/dashboard/deliveries/:id', async (c) => {
    const detail = await portal.detail(actor(c), c.req.param('id'));
    if (!detail)
      return c.html(layout('Delivery not found', html`<p>No such delivery in your company.</p>`, nav(c)), 404);
    const done = c.req.query('done');
    const notice = done ? describeAction(portal.actionResult(actor(c), done)) : undefined;
    return c.html(
      layout(
        `Delivery ${detail.eventId}`,
        deliveryPage(detail, c.get('csrfToken'), notice),
        nav(c),
        html`Delivery for session <code>${detail.sessionId}</code>`,
      ),
    );
  });

  app.post('/dashboard/deliveries/:id/redeliver', async (c) => {
    const form = await c.req.parseBody();
    const key = typeof form._click === 'string' ? form._click : '';
    const id = c.req.param('id');
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) return c.text('Reload the delivery page and press Redeliver again.', 422);
    try {
      await portal.redeliver(actor(c), id, key);
    } catch (error) {
      if (!(error instanceof PortalActionError)) throw error;
      return c.text(error.message, actionErrorStatus(error));
    }
    return c.redirect(`/dashboard/deliveries/${encodeURIComponent(id)}?done=${encodeURIComponent(key)}`, 303);
  });

  return app;
}
