import type { ClaimRequest, LaneRoom } from './store.js';

/** The parts of a claim that decide how many deliveries of each origin it may take. */
export type RoomRequest = Pick<ClaimRequest, 'limit' | 'slow' | 'excludeOrigins' | 'maxPerOrigin' | 'busyOrigins'>;

/** The set of a lane's origins, made once per array: the engine hands the same array out until its marks change. */
const slowSets = new WeakMap<readonly string[], ReadonlySet<string>>();
const NO_ORIGINS: ReadonlySet<string> = new Set();

/** `lanes.slow.origins` as a set (cached per array). */
export function slowOriginsOf(lanes: LaneRoom | undefined): ReadonlySet<string> {
  const origins = lanes?.slow?.origins;
  if (origins === undefined || origins.length === 0) return NO_ORIGINS;
  let set = slowSets.get(origins);
  if (set === undefined) {
    set = new Set(origins);
    slowSets.set(origins, set);
  }
  return set;
}

/** Whether `origin`'s lane has room at all in `lanes` (every lane does without `lanes`). */
export function laneOpen(lanes: LaneRoom | undefined, slow: ReadonlySet<string>, origin: string): boolean {
  if (lanes === undefined) return true;
  return slow.has(origin) ? (lanes.slow?.limit ?? 0) > 0 : lanes.limit > 0;
}

/**
 * The room of one claim, counted down as it takes deliveries: each lane's free slots (the prompt
 * lane's `limit` for most origins, `slow.limit` for the slow lane's), and each origin's room
 * (`maxPerOrigin` less `busyOrigins`; none for `excludeOrigins`). The one rule every store applies,
 * in memory or before writing its SQL parameters.
 */
export class OriginRoom {
  readonly #maxPerOrigin: number;
  readonly #inFlight: Map<string, number>;
  readonly #slow: ReadonlySet<string>;
  #promptLeft: number;
  #slowLeft: number;

  constructor(request: RoomRequest, alreadyTaken: readonly string[] = []) {
    this.#maxPerOrigin = request.maxPerOrigin ?? Number.POSITIVE_INFINITY;
    this.#inFlight = new Map(request.busyOrigins);
    for (const origin of request.excludeOrigins) this.#inFlight.set(origin, Number.POSITIVE_INFINITY);
    this.#slow = slowOriginsOf(request);
    this.#promptLeft = request.limit;
    this.#slowLeft = request.slow?.limit ?? 0;
    for (const origin of alreadyTaken) this.#count(origin);
  }

  /** Free slots left in the prompt lane (origins outside `slow.origins`). */
  get promptLeft(): number {
    return Math.max(0, this.#promptLeft);
  }

  /** Free slots left in the slow lane. */
  get slowLeft(): number {
    return Math.max(0, this.#slowLeft);
  }

  /** No lane has a free slot left. */
  get full(): boolean {
    return this.#promptLeft <= 0 && this.#slowLeft <= 0;
  }

  /** How many more deliveries of `origin` would fit now. */
  roomFor(origin: string): number {
    const lane = this.#slow.has(origin) ? this.#slowLeft : this.#promptLeft;
    return Math.max(0, Math.min(lane, this.#maxPerOrigin - (this.#inFlight.get(origin) ?? 0)));
  }

  /** Counts one delivery of `origin` if it fits; `false` (nothing counted) if it does not. */
  take(origin: string): boolean {
    if (this.roomFor(origin) <= 0) return false;
    this.#count(origin);
    return true;
  }

  #count(origin: string): void {
    this.#inFlight.set(origin, (this.#inFlight.get(origin) ?? 0) + 1);
    if (this.#slow.has(origin)) this.#slowLeft--;
    else this.#promptLeft--;
  }
}

/**
 * Splits `items` (in due order) into those a claim hands out now and those it keeps, going round
 * the origins: the first item of each origin, then the second of each, and so on, each while its
 * origin and its lane have room ({@link OriginRoom}, counting `alreadyTaken` first) and only if
 * `eligible` says so. `kept` stays in the order of `items`.
 */
export function takeWithRoom<T>(
  items: readonly T[],
  request: RoomRequest,
  originOf: (item: T) => string,
  options: { readonly alreadyTaken?: readonly string[]; readonly eligible?: (item: T) => boolean } = {},
): { taken: T[]; kept: T[] } {
  const room = new OriginRoom(request, options.alreadyTaken);
  const first = items[0];
  const single = first !== undefined && items.every((item) => originOf(item) === originOf(first));
  if (single) {
    // One origin (a flood, a single endpoint): nothing to go round, and no grouping to allocate.
    const taken: T[] = [];
    const kept: T[] = [];
    const origin = originOf(first);
    for (const item of items) {
      if (options.eligible?.(item) !== false && room.take(origin)) taken.push(item);
      else kept.push(item);
    }
    return { taken, kept };
  }
  const byOrigin = new Map<string, T[]>();
  for (const item of items) {
    if (options.eligible?.(item) === false) continue;
    const origin = originOf(item);
    const own = byOrigin.get(origin);
    if (own === undefined) byOrigin.set(origin, [item]);
    else own.push(item);
  }
  const taken: T[] = [];
  for (let turn = 0; byOrigin.size > 0 && !room.full; turn++) {
    for (const [origin, own] of byOrigin) {
      const item = own[turn];
      if (item === undefined || !room.take(origin)) byOrigin.delete(origin);
      else taken.push(item);
      if (room.full) break;
    }
  }
  if (taken.length === 0) return { taken, kept: [...items] };
  const chosen = new Set(taken);
  return { taken, kept: items.filter((item) => !chosen.has(item)) };
}
