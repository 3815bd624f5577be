import { html } from 'hono/html';
import { PAYLOAD_SHAPES, type PayloadShape } from '../domain/enum-values.js';
import type { ActionResult } from '../portal/portal-service.js';
import { attemptResult, fixOf } from './delivery-page.js';
import { csrfField, type Html } from './layout.js';
import { clickField } from './page-parts.js';

/** The "Send test event" form of the settings page, with the last answer inline and the shape last sent chosen. */
export function testEventForm(csrf: string, answer: Html | string, chosen: PayloadShape = 'both'): Html {
  return html`<section aria-labelledby="test-heading"><h2 id="test-heading">Try your endpoint</h2>
<form method="post" action="/dashboard/settings/test-event">${csrfField(csrf)}${clickField()}
<label for="test-shape">Payload shape</label><select id="test-shape" name="shape">${PAYLOAD_SHAPES.map(
    (shape) => html`<option value="${shape}" ${shape === chosen ? 'selected' : ''}>${shape}</option>`,
  )}</select>
<p><button type="submit">Send test event</button></p>
<p class="muted">Sends a real webhook marked as a test (session id <code>test_…</code>) to the saved URL through the delivery engine, and waits for its answer (up to 30 s). A failing test event is retried like any other.</p>
</form>${answer}</section>`;
}

/** The answer to a test event, shown inline: status, latency, response and what to fix. */
export function testEventAnswer(result: Extract<ActionResult, { action: 'test_event' }>): Html {
  const link = html`<a href="/dashboard/deliveries/${result.eventId}">Open the test delivery</a>`;
  if (result.outcome === 'not_sent') {
    return html`<div id="test-answer" role="status"><p class="error">Not sent: ${result.problem}</p></div>`;
  }
  const a = result.attempt;
  if (!a) return html`<div id="test-answer" role="status"><p>No answer yet. ${link} to follow it.</p></div>`;
  const ok = a.diagnosis === null;
  return html`<div id="test-answer" role="status">
<p class="${ok ? 'notice' : 'error'}"><strong>${ok ? 'Delivered' : 'Failed'}:</strong> ${attemptResult(a)} in ${a.latencyMs} ms (${result.shape} payload). ${link}.</p>
${a.responseSnippet ? html`<p>Your endpoint answered:</p><pre>${a.responseSnippet}</pre>` : ''}${fixOf(a)}</div>`;
}
