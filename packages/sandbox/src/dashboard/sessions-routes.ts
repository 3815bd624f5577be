import { VERIFICATION_STATUSES } from '@kyc/contracts';
import { Hono } from 'hono';
import { html } from 'hono/html';
import { PAYLOAD_SHAPES, STATE } from '../domain/enum-values.js';
import { outcomeRequestSchema } from '../domain/outcome.js';
import type { SandboxService } from '../sandbox-service.js';
import type { DashboardVariables } from './dashboard-auth.js';
import { csrfField, layout } from './layout.js';

/** Sessions: create one with a chosen outcome, and finish it (spec §1: "finished in the service dashboard"). */
export function sessionsRoutes(service: SandboxService): Hono<{ Variables: DashboardVariables }> {
  const app = new Hono<{ Variables: DashboardVariables }>();

  app.get('/dashboard/sessions', async (c) => {
    const csrf = c.get('csrfToken');
    const sessions = service.store.listSessions(c.get('company').id, 100);
    const rows = await Promise.all(
      sessions.map(async (session) => {
        const delivery = session.state === STATE.FINISHED ? await service.sessionDelivery(session.id) : undefined;
        const deliveryState = !delivery
          ? ''
          : delivery.outbox.relayedAt === undefined
            ? 'queued'
            : (delivery.delivery?.state ?? 'not sent');
        return html`<tr data-session-id="${session.id}">
<td><code>${session.id}</code></td><td>${session.shortKey}</td><td>${session.outcome.status}</td>
<td>${session.outcome.shape}</td><td class="state">${session.state}</td><td class="delivery-state">${deliveryState}</td>
<td>${
          session.state === STATE.FINISHED
            ? html`<a href="/dashboard/deliveries?session=${session.id}">Delivery</a>`
            : html`<form method="post" action="/dashboard/sessions/${session.id}/finish">${csrfField(csrf)}<button type="submit">Finish</button></form>`
        }</td></tr>`;
      }),
    );
    const content = html`<section><h2>New session</h2>
<form method="post" action="/dashboard/sessions">${csrfField(csrf)}
<label for="status">Result</label><select id="status" name="status">${VERIFICATION_STATUSES.map(
      (status) => html`<option value="${status}">${status}</option>`,
    )}</select>
<label for="shape">Payload shape</label><select id="shape" name="shape">${PAYLOAD_SHAPES.map(
      (shape) => html`<option value="${shape}" ${shape === 'both' ? 'selected' : ''}>${shape}</option>`,
    )}</select>
<p><button type="submit">Create session</button></p></form></section>
<section><h2>Sessions</h2>${
      rows.length === 0
        ? html`<p class="muted">No sessions yet.</p>`
        : html`<table id="sessions"><tr><th>Id</th><th>Short key</th><th>Result</th><th>Shape</th><th>State</th><th>Webhook</th><th></th></tr>${rows}</table>`
    }</section>`;
    return c.html(layout('Sessions', content, { csrfToken: csrf, username: c.get('user').username }));
  });

  app.post('/dashboard/sessions', async (c) => {
    const form = await c.req.parseBody();
    const parsed = outcomeRequestSchema.safeParse({ status: form.status, shape: form.shape });
    if (!parsed.success) return c.text('Choose a result and a payload shape from the lists.', 422);
    service.createSession(c.get('company').id, parsed.data);
    return c.redirect('/dashboard/sessions', 303);
  });

  app.post('/dashboard/sessions/:id/finish', async (c) => {
    const result = await service.finishSession(c.get('company').id, c.req.param('id'));
    if (!result) return c.text('No such session.', 404);
    return c.redirect('/dashboard/sessions', 303);
  });

  return app;
}
