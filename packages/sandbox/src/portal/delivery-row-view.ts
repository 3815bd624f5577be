import type { PortalDeliveryRow } from './portal-store.js';
import type { DeliveryListItem } from './portal-views.js';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** A row of the delivery log as the portal's API and pages show it. */
export function deliveryListItem(row: PortalDeliveryRow): DeliveryListItem {
  return {
    eventId: row.eventId,
    sessionId: row.sessionId,
    shortKey: row.shortKey,
    test: row.kind === 'test',
    state: row.state,
    attempts: row.attempts,
    lastOutcome: row.lastOutcome ?? null,
    lastStatus: row.lastStatus ?? null,
    createdAt: new Date(row.createdAt).toISOString(),
    nextAttemptAt: row.state === 'pending' ? iso(row.nextAttemptAt) : null,
    note: row.note ?? null,
  };
}

/** A JSON body indented for reading; any other text as it is. */
export function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
