import { randomBytes } from 'node:crypto';
import { html } from 'hono/html';
import type { Html } from './layout.js';

const LABELS: Readonly<Record<string, string>> = {
  delivered: 'Delivered',
  pending: 'Retrying',
  failed: 'Failed',
  queued: 'Queued',
  not_sent: 'Not sent',
};

/** A delivery state as a badge whose text says it (colour is only a second cue). */
export function stateBadge(state: string): Html {
  return html`<span class="badge b-${state}">${LABELS[state] ?? state}</span>`;
}

/** An ISO time as `2026-11-25 06:40:12 UTC` in a `<time>` element; a dash for none. */
export function timeOf(iso: string | null): Html | string {
  if (!iso) return '—';
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

/** A fresh idempotency key for one click of a state-changing form. */
export function clickField(): Html {
  return html`<input type="hidden" name="_click" value="${randomBytes(16).toString('base64url')}">`;
}
