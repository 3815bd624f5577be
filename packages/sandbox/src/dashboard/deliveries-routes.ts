import { Hono } from 'hono';
import { html } from 'hono/html';
import { type DeliveryView, deliveryView } from '../api/delivery-view.js';
import type { SandboxService } from '../sandbox-service.js';
import type { DashboardVariables } from './dashboard-auth.js';
import { csrfField, type Html, layout } from './layout.js';

function deliverySection(view: DeliveryView, csrf: string): Html {
  const canRedeliver = view.state === 'delivered' || view.state === 'failed';
  return html`<section id="${view.sessionId}" class="delivery" data-event-id="${view.eventId}">
<h2>Session <code>${view.sessionId}</code></h2>
<p>State: <strong class="delivery-state">${view.state}</strong> · Webhook-Id <code>${view.eventId}</code>
${view.url ? html` · to <code>${view.url}</code>` : ''}${view.nextAttemptAt ? html` · next attempt ${view.nextAttemptAt}` : ''}</p>
${view.note ? html`<p class="muted">${view.note}</p>` : ''}
<table class="attempts"><tr><th>#</th><th>Round</th><th>Time</th><th>Outcome</th><th>Status</th><th>Latency</th><th>Response</th></tr>
${view.attempts.map(
  (
    a,
  ) => html`<tr class="attempt"><td>${a.attempt}</td><td>${a.round}</td><td>${a.at}</td><td class="outcome">${a.outcome}</td>
<td class="status">${a.status ?? '—'}</td><td class="latency">${a.latencyMs} ms</td><td class="response"><pre>${(a.responseSnippet ?? a.error ?? '').slice(0, 500)}</pre></td></tr>`,
)}</table>
${
  canRedeliver
    ? html`<form method="post" action="/dashboard/deliveries/${view.eventId}/redeliver">${csrfField(csrf)}<button type="submit">Redeliver</button></form>`
    : ''
}</section>`;
}

/** Deliveries: every webhook with each attempt (outcome, status, latency, response snippet) and Redeliver. */
export function deliveriesRoutes(service: SandboxService): Hono<{ Variables: DashboardVariables }> {
  const app = new Hono<{ Variables: DashboardVariables }>();

  app.get('/dashboard/deliveries', async (c) => {
    const csrf = c.get('csrfToken');
    const views = (await service.deliveries(c.get('company').id)).map((row) => deliveryView(service.clock, row));
    const notice =
      c.req.query('redelivered') === '1' ? html`<p class="notice" role="status">Redelivery started.</p>` : '';
    const content = html`${notice}${
      views.length === 0
        ? html`<p class="muted">No webhooks yet: finish a session.</p>`
        : views.map((v) => deliverySection(v, csrf))
    }`;
    return c.html(layout('Deliveries', content, { csrfToken: csrf, username: c.get('user').username }));
  });

  app.post('/dashboard/deliveries/:id/redeliver', async (c) => {
    const result = await service.redeliver(c.get('company').id, c.req.param('id'));
    if (result === 'not_found') return c.text('No such delivery.', 404);
    if (result === 'in_progress') return c.text('The delivery is still pending; wait until it ends.', 409);
    return c.redirect('/dashboard/deliveries?redelivered=1', 303);
  });

  return app;
}
