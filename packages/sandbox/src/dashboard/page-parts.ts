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

/**
 * A delivery state as a badge whose text says it (colour is only a second cue). A pending
 * delivery reads Sending until its first attempt is recorded: "Retrying" beside "0 attempts"
 * contradicted itself.
 */
export function stateBadge(state: string, attempts: number): Html {
  const label = state === 'pending' && attempts === 0 ? 'Sending' : (LABELS[state] ?? state);
  return html`<span class="badge b-${state}">${label}</span>`;
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
