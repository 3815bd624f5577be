import * as z from 'zod';
import { IDEMPOTENCY_KEY_PATTERN } from './portal-action-store.js';
import type { PortalListQuery, PortalState } from './portal-store.js';

/** The Status filter's choices, as the URL and the JSON API spell them. */
export const STATUS_FILTERS = ['all', 'delivered', 'retrying', 'failed'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

const STATE_OF: Readonly<Record<StatusFilter, PortalState | undefined>> = {
  all: undefined,
  delivered: 'delivered',
  retrying: 'pending',
  failed: 'failed',
};

/** Rows per page of the Deliveries page and `GET /sandbox/portal/deliveries`. */
export const PAGE_SIZE = 50;
const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CURSOR = /^(\d{1,16})\.([\w-]{1,100})$/;

/** A position in the list: the last (or first) row's creation time and event id. */
export function encodeCursor(row: { createdAt: number; eventId: string }): string {
  return Buffer.from(`${row.createdAt}.${row.eventId}`).toString('base64url');
}

function decodeCursor(value: string, ctx: z.RefinementCtx): { createdAt: number; eventId: string } {
  const match = CURSOR.exec(Buffer.from(value, 'base64url').toString('utf8'));
  if (!match?.[1] || !match[2]) {
    ctx.addIssue({ code: 'custom', message: 'is not a cursor this API gave out' });
    return z.NEVER;
  }
  return { createdAt: Number(match[1]), eventId: match[2] };
}

/** A `YYYY-MM-DD` day (UTC) as epoch ms of its start; `to` days are inclusive, so their end is used. */
const day = (edge: 'start' | 'end') =>
  z
    .string()
    .regex(DATE, 'must be a date like 2026-11-25')
    .transform((value, ctx) => {
      const ms = Date.parse(`${value}T00:00:00.000Z`);
      if (Number.isNaN(ms)) {
        ctx.addIssue({ code: 'custom', message: 'is not a calendar date' });
        return z.NEVER;
      }
      return edge === 'start' ? ms : ms + DAY_MS;
    });

const blankToUndefined = (value: unknown) => (value === '' || value === null ? undefined : value);

/** The Deliveries filter as it travels in the URL (so a view can be shared). */
export const deliveryQuerySchema = z.object({
  status: z.preprocess(blankToUndefined, z.enum(STATUS_FILTERS).default('all')),
  session: z.preprocess(blankToUndefined, z.string().trim().max(100).optional()),
  replay: z.preprocess(
    blankToUndefined,
    z.string().regex(IDEMPOTENCY_KEY_PATTERN, 'must be the key of a Replay failed').optional(),
  ),
  from: z.preprocess(blankToUndefined, day('start').optional()),
  to: z.preprocess(blankToUndefined, day('end').optional()),
  after: z.preprocess(blankToUndefined, z.string().max(200).transform(decodeCursor).optional()),
  before: z.preprocess(blankToUndefined, z.string().max(200).transform(decodeCursor).optional()),
});

/** The filter echoed back: what the form fields and the page links carry. */
export interface DeliveryFilterView {
  readonly status: StatusFilter;
  readonly session: string;
  /** The Replay failed whose deliveries alone are listed ('' for none). */
  readonly replay: string;
  readonly from: string;
  readonly to: string;
}

/**
 * Parses the URL's filter into a store query. `undefined` values are left out; a bad value is
 * a zod error the caller turns into a 400 naming the parameter.
 */
export function parseDeliveryQuery(
  params: Record<string, string | undefined>,
): { ok: true; query: PortalListQuery; filter: DeliveryFilterView } | { ok: false; issues: z.core.$ZodIssue[] } {
  const parsed = deliveryQuerySchema.safeParse(params);
  if (!parsed.success) return { ok: false, issues: parsed.error.issues };
  const { status, session, replay, from, to, after, before } = parsed.data;
  const state = STATE_OF[status];
  return {
    ok: true,
    query: {
      limit: PAGE_SIZE,
      ...(state ? { state } : {}),
      ...(session ? { session } : {}),
      ...(replay ? { replay } : {}),
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
      ...(after ? { after } : {}),
      ...(before && !after ? { before } : {}),
    },
    filter: { status, session: session ?? '', replay: replay ?? '', from: params.from ?? '', to: params.to ?? '' },
  };
}
