import { html } from 'hono/html';
import type { AttemptDetail, Forwarding } from '../portal/portal-service.js';
import type { Html } from './layout.js';
import { timeOf } from './page-parts.js';

/**
 * Says whether the company's deliveries go to a `kyc-sandbox listen` right now: who runs it,
 * on which machine and address, to which local URL, since when. Nothing when none is connected.
 */
export function forwardingBanner(forwarding: Forwarding | null): Html | string {
  if (forwarding === null) return '';
  return html`<p class="notice" role="status" id="forwarding">Deliveries are forwarded to <strong>kyc-sandbox listen</strong>
on ${forwarding.host} (${forwarding.address}), run by ${forwarding.username}, to <code>${forwarding.forwardTo}</code> on that machine,
since ${timeOf(forwarding.since)}. While it is connected no delivery goes to the saved webhook URL.</p>`;
}

/** How the inspector marks an attempt that went through `kyc-sandbox listen`. */
export function forwardedMark(a: AttemptDetail): Html | string {
  if (a.forwardedTo === null) return '';
  return html`<br><span class="badge b-test">Forwarded</span> <span class="muted">via kyc-sandbox listen on ${a.forwardedTo.host} to ${a.forwardedTo.forwardTo}</span>`;
}
