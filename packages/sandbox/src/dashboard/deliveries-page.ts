import { html } from 'hono/html';
import { STATUS_FILTERS } from '../portal/delivery-query.js';
import { type DeliveryListItem, type DeliveryPage, type Forwarding, MAX_REPLAY } from '../portal/portal-service.js';
import { forwardingBanner } from './forwarding-banner.js';
import { csrfField, type Html } from './layout.js';
import { clickField, stateBadge, timeOf } from './page-parts.js';

const FILTER_LABELS = { all: 'All', delivered: 'Delivered', retrying: 'Retrying', failed: 'Failed' } as const;

/** The table rows alone: the live update swaps exactly these in. */
export function deliveryRows(page: DeliveryPage): Html {
  if (page.deliveries.length === 0) {
    return html`<tr><td colspan="7">No deliveries match these filters.</td></tr>`;
  }
  return html`${page.deliveries.map(
    (d: DeliveryListItem) => html`<tr data-event-id="${d.eventId}">
<td data-label="Session"><a href="/dashboard/deliveries/${d.eventId}">${d.sessionId}</a>${d.test ? html` <span class="badge b-test">Test</span>` : ''}</td>
<td data-label="Short key">${d.shortKey}</td><td data-label="Status">${stateBadge(d.state, d.attempts)}</td><td data-label="Attempts">${d.attempts}</td>
<td data-label="Last answer">${d.lastStatus ?? d.lastOutcome ?? (d.note ? html`<span class="muted">${d.note}</span>` : '—')}</td>
<td data-label="Created">${timeOf(d.createdAt)}</td><td data-label="Next attempt">${timeOf(d.nextAttemptAt)}</td></tr>`,
  )}`;
}

function pageLink(page: DeliveryPage, direction: 'after' | 'before', cursor: string): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(page.filter)) if (value && value !== 'all') params.set(name, value);
  params.set(direction, cursor);
  return `/dashboard/deliveries?${params}`;
}

/** The Deliveries page: filters in the URL, keyset pages, live rows, and Replay failed. */
export function deliveriesPage(
  page: DeliveryPage,
  csrf: string,
  notice: string | undefined,
  liveUrl: string,
  forwarding: Forwarding | null = null,
): Html {
  const f = page.filter;
  const dayAgo = new Date(Date.now() - 86_400_000).toISOString().slice(0, 16);
  return html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}${forwardingBanner(forwarding)}
<section aria-labelledby="filters-heading"><h2 id="filters-heading">Filters</h2>
<form method="get" action="/dashboard/deliveries" class="filters">
<div><label for="f-status">Status</label><select id="f-status" name="status">${STATUS_FILTERS.map(
    (s) => html`<option value="${s}" ${f.status === s ? 'selected' : ''}>${FILTER_LABELS[s]}</option>`,
  )}</select></div>
<div><label for="f-session">Session</label><input type="search" id="f-session" name="session" value="${f.session}" placeholder="Session id or short key"></div>
<div><label for="f-from">From</label><input type="date" id="f-from" name="from" value="${f.from}"></div>
<div><label for="f-to">To</label><input type="date" id="f-to" name="to" value="${f.to}"></div>
${f.replay ? html`<input type="hidden" name="replay" value="${f.replay}">` : ''}<div><button type="submit">Apply filters</button> <a href="/dashboard/deliveries">Clear</a></div>
</form>${
    f.replay
      ? html`<p id="replay-filter">Only the deliveries this replay queued. <a href="/dashboard/deliveries">Show all deliveries</a></p>`
      : ''
  }</section>
<section aria-labelledby="log-heading"><h2 id="log-heading">Delivery log</h2>
<p id="live-status" class="muted" aria-live="polite"></p>
<table class="stack"><caption class="muted" style="text-align:left">Newest first, ${page.pageSize} per page.</caption>
<thead><tr><th scope="col">Session</th><th scope="col">Short key</th><th scope="col">Status</th><th scope="col">Attempts</th>
<th scope="col">Last answer</th><th scope="col">Created</th><th scope="col">Next attempt</th></tr></thead>
<tbody data-live="${liveUrl}">${deliveryRows(page)}</tbody></table>
<nav class="pager" aria-label="Pages">${page.prevCursor ? html`<a href="${pageLink(page, 'before', page.prevCursor)}">Previous page</a>` : ''}${
    page.nextCursor ? html`<a href="${pageLink(page, 'after', page.nextCursor)}">Next page</a>` : ''
  }</nav></section>
<section aria-labelledby="replay-heading"><h2 id="replay-heading">Recover after an outage</h2>
<form method="post" action="/dashboard/deliveries/replay-failed">${csrfField(csrf)}
<label for="replay-since">Failed since (UTC)</label><input type="datetime-local" id="replay-since" name="since" value="${dayAgo}" required>
<p><button type="submit">Replay failed</button></p>
<p class="muted">Every failed delivery created since then gets one new round of attempts through the normal queue. You confirm on the next page.</p>
</form></section>`;
}

/** The confirmation step of Replay failed: says how many it will queue, and asks. */
export function replayConfirmPage(since: string, count: number, csrf: string): Html {
  return html`<section><p>Replay <strong>${count}</strong> failed ${count === 1 ? 'delivery' : 'deliveries'} created since ${since.replace('T', ' ').slice(0, 19)} UTC? Each is queued once for a new round of attempts.${
    count > MAX_REPLAY
      ? ` One click queues the oldest ${MAX_REPLAY.toLocaleString('en')}; replay again for the rest.`
      : ''
  }</p>
<form method="post" action="/dashboard/deliveries/replay-failed/confirm">${csrfField(csrf)}${clickField()}
<input type="hidden" name="since" value="${since}">
<p><button type="submit">Confirm replay</button> <a href="/dashboard/deliveries">Cancel</a></p></form></section>`;
}
