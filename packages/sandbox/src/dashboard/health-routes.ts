import { Hono } from 'hono';
import { html } from 'hono/html';
import { SPEC_HINTS } from '../check/diagnose-attempt.js';
import type { HealthFailure } from '../portal/compute-health.js';
import type { PortalService } from '../portal/portal-service.js';
import type { DashboardVariables } from './dashboard-auth.js';
import { healthChart } from './health-chart.js';
import { type Html, layout } from './layout.js';
import { timeOf } from './page-parts.js';

const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)} %`);
const ms = (value: number | null) => (value === null ? '—' : `${value} ms`);

function failure(f: HealthFailure): Html {
  return html`<li>${timeOf(f.at)} · <a href="/dashboard/deliveries/${f.eventId}">attempt ${f.attempt}</a>:
${f.status !== null ? `HTTP ${f.status}` : f.outcome}${f.error ? html` <span class="muted">(${f.error})</span>` : ''}
${f.diagnosis ? html`<br><span class="fix">${f.diagnosis.message}</span>${f.diagnosis.hint ? html` <span class="muted">${SPEC_HINTS[f.diagnosis.hint]}</span>` : ''}` : ''}</li>`;
}

/** Endpoint health: attempts per hour (SVG and table), success rate, latency, last errors, retry state. */
export function healthRoutes(portal: PortalService): Hono<{ Variables: DashboardVariables }> {
  const app = new Hono<{ Variables: DashboardVariables }>();

  app.get('/dashboard/health', (c) => {
    const user = c.get('user');
    const h = portal.health({ companyId: user.companyId, userId: user.id, username: user.username });
    const waiting = Object.entries(h.retries.waiting);
    const content = html`<section aria-labelledby="now-heading"><h2 id="now-heading">Last 24 hours</h2>
<p>Endpoint: <code>${h.endpoint.url ?? 'not set'}</code> · Auth Key ${h.endpoint.hasAuthKey ? 'set' : 'not set'}</p>
<p id="endpoint-pace" data-state="${h.pace.state}">${h.pace.state === 'hangs' || h.pace.state === 'slow' ? html`<strong>${h.pace.message}</strong>` : h.pace.message}</p>
<table id="health-summary"><tbody>
<tr><th scope="row">Attempts</th><td>${h.attempts}</td></tr>
<tr><th scope="row">Success rate</th><td>${percent(h.successRate)}</td></tr>
<tr><th scope="row">Latency p50</th><td>${ms(h.latencyMs.p50)}</td></tr>
<tr><th scope="row">Latency p95</th><td>${ms(h.latencyMs.p95)}</td></tr>
<tr><th scope="row">Last error</th><td>${h.lastError ? html`<ul style="margin:0;padding-left:1rem">${failure(h.lastError)}</ul>` : 'none'}</td></tr>
</tbody></table></section>
<section aria-labelledby="chart-heading"><h2 id="chart-heading">Attempts per hour</h2>${healthChart(h.hours)}
<h3 id="hourly-heading">The same numbers as a table</h3>
<div class="scroll" tabindex="0" role="region" aria-labelledby="hourly-heading"><table aria-label="Attempts per hour (UTC)">
<thead><tr><th scope="col">Hour (UTC)</th><th scope="col">Delivered</th><th scope="col">Failed</th><th scope="col">Failures by outcome</th></tr></thead>
<tbody>${h.hours.map(
      (hour) =>
        html`<tr><td>${hour.start.slice(0, 16).replace('T', ' ')}</td><td>${hour.delivered}</td><td>${hour.failed}</td><td>${Object.entries(
          hour.byOutcome,
        )
          .map(([outcome, n]) => `${outcome}: ${n}`)
          .join(', ')}</td></tr>`,
    )}</tbody></table></div></section>
<section aria-labelledby="retry-heading"><h2 id="retry-heading">Retries</h2>
<p>${h.retries.pending} ${h.retries.pending === 1 ? 'delivery is' : 'deliveries are'} waiting for an attempt${
      h.retries.nextAttemptAt ? html`; the next is due ${timeOf(h.retries.nextAttemptAt)}` : ''
    }.</p>
${waiting.length ? html`<ul>${waiting.map(([made, n]) => html`<li>${n} after ${made} attempt${made === '1' ? '' : 's'}</li>`)}</ul>` : ''}
<p class="muted">${h.retries.schedule}</p>
<p>Circuit: <strong>none</strong>. <span class="muted">${h.circuit.message}</span></p></section>
<section aria-labelledby="failures-heading"><h2 id="failures-heading">Last failures</h2>${
      h.lastFailures.length ? html`<ul>${h.lastFailures.map(failure)}</ul>` : html`<p>No failed attempt.</p>`
    }</section>`;
    return c.html(layout('Endpoint health', content, { csrfToken: c.get('csrfToken'), username: user.username }));
  });

  return app;
}
