import { html } from 'hono/html';
import { SPEC_HINTS } from '../check/diagnose-attempt.js';
import type { AttemptDetail, DeliveryDetail } from '../portal/portal-service.js';
import { ageText } from '../signing/signing-secret-views.js';
import { forwardedMark } from './forwarding-banner.js';
import { csrfField, type Html } from './layout.js';
import { clickField, stateBadge, timeOf } from './page-parts.js';

/** An attempt's result and what to fix, for the inspector and the test-event answer. */
export function attemptResult(a: AttemptDetail): Html {
  return html`${a.status !== null ? html`HTTP ${a.status}` : a.outcome}${a.status !== null ? html` <span class="muted">(${a.outcome})</span>` : ''}${
    a.error ? html`<br><span class="muted">${a.error}</span>` : ''
  }`;
}

/** The cause-and-fix sentence of an attempt with the specification's hint, or nothing. */
export function fixOf(a: AttemptDetail): Html | string {
  if (!a.diagnosis) return '';
  return html`<p class="fix">${a.diagnosis.message}${a.diagnosis.hint ? html` <span class="muted">${SPEC_HINTS[a.diagnosis.hint]}</span>` : ''}</p>`;
}

/** Which secrets signed an attempt, by label and age at the time (never a value). */
function signedMark(a: AttemptDetail): Html | string {
  if (a.signedWith === null) return '';
  const at = Date.parse(a.at);
  return html`<br><span class="muted signed-with">Signed with ${a.signedWith.map(
    (s, i) => html`${i > 0 ? ' and ' : ''}<code>${s.label}</code> (then ${ageText(at - Date.parse(s.createdAt))} old)`,
  )}</span>`;
}

/**
 * Why the endpoint may have seen this event more often than the attempts listed: the sends before
 * this attempt whose result the sender never recorded (it stopped between sending and recording).
 */
function unrecordedMark(a: AttemptDetail): Html | string {
  if (a.unrecordedSends === 0) return '';
  const times = a.unrecordedSends === 1 ? 'once' : `${a.unrecordedSends} times`;
  return html`<br><span class="muted unrecorded-sends">Sent ${times} before without a recorded result (the sender stopped between sending and recording): your endpoint may have received this event that many more times.</span>`;
}

/** The delivery inspector: the exact request, every attempt, and Redeliver. */
export function deliveryPage(d: DeliveryDetail, csrf: string, notice: string | undefined): Html {
  return html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<section aria-labelledby="summary-heading"><h2 id="summary-heading">Summary</h2>
<table><tbody>
<tr><th scope="row">Status</th><td>${stateBadge(d.state, d.attempts)}${d.test ? html` <span class="badge b-test">Test event</span>` : ''}</td></tr>
<tr><th scope="row">Event id (Webhook-Id)</th><td><code>${d.eventId}</code></td></tr>
<tr><th scope="row">Session</th><td><code>${d.sessionId}</code> · short key ${d.shortKey}</td></tr>
<tr><th scope="row">Created</th><td>${timeOf(d.createdAt)}</td></tr>
<tr><th scope="row">Next scheduled attempt</th><td>${timeOf(d.nextAttemptAt)}</td></tr>
${d.note ? html`<tr><th scope="row">Note</th><td>${d.note}</td></tr>` : ''}
</tbody></table>
${
  d.canRedeliver
    ? html`<form method="post" action="/dashboard/deliveries/${d.eventId}/redeliver">${csrfField(csrf)}${clickField()}<p><button type="submit">Redeliver</button></p></form>`
    : html`<p class="muted">Redeliver is possible once the delivery is delivered or failed.</p>`
}</section>
<section aria-labelledby="request-heading"><h2 id="request-heading">Request</h2>
<p><code>${d.request.method} ${d.request.url ?? '(no URL)'}</code>${
    d.request.toListener
      ? html` <span class="muted">(made while no webhook URL was saved: only a connected kyc-sandbox listen receives it)</span>`
      : ''
  }</p>
<table><caption class="muted" style="text-align:left">Headers${d.attemptLog.length > 0 ? ' of the latest attempt' : ' to be sent'}</caption>
<thead><tr><th scope="col">Header</th><th scope="col">Value</th></tr></thead><tbody>${d.request.headers.map(
    (h) => html`<tr><td><code>${h.name}</code></td><td><code>${h.value}</code></td></tr>`,
  )}</tbody></table>
<h3>Body <span class="muted">(${d.request.bodyBytes} bytes, sent compact)</span></h3>
<p><button type="button" data-copy="request-body" aria-describedby="copy-status" hidden>Copy body</button> <span id="copy-status" role="status"></span></p>
<pre id="request-body" tabindex="0" aria-label="Request body">${d.request.body}</pre></section>
<section aria-labelledby="attempts-heading"><h2 id="attempts-heading">Attempts</h2>
${
  d.attemptLog.length === 0
    ? html`<p class="muted">No attempt yet.</p>`
    : // On a phone each attempt is a card of labelled lines (the table's \`stack\` style): nothing to scroll.
      html`<table class="stack"><thead><tr><th scope="col">#</th><th scope="col">Round</th><th scope="col">Time</th><th scope="col">Result</th>
<th scope="col">Latency</th><th scope="col">Response</th><th scope="col">What to fix</th></tr></thead><tbody>${d.attemptLog.map(
        (
          a,
        ) => html`<tr class="attempt"><td data-label="#">${a.attempt}</td><td data-label="Round">${a.round}</td><td data-label="Time">${timeOf(a.at)}</td><td data-label="Result">${attemptResult(a)}${forwardedMark(a)}${signedMark(a)}${unrecordedMark(a)}</td>
<td data-label="Latency">${a.latencyMs} ms</td><td data-label="Response">${a.responseSnippet ? html`<pre>${a.responseSnippet}</pre>` : ''}</td><td data-label="What to fix">${fixOf(a)}</td></tr>`,
      )}</tbody></table>`
}
${
  d.redeliveries.length + d.actions.length > 0
    ? html`<h3>Audit log</h3><ul>${d.redeliveries.map((r) => html`<li>Round ${r.round} queued ${timeOf(r.requestedAt)}</li>`)}${d.actions.map(
        (a) => html`<li>${a.action} asked by ${a.username} ${timeOf(a.at)}</li>`,
      )}</ul>`
    : ''
}</section>`;
}
