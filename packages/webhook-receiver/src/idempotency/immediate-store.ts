import type { ClaimOptions, ClaimResult, CompleteOptions, IdempotencyStore } from './store.js';

const IMMEDIATE = Symbol('kyc.idempotency.immediate');

/** The answers of a store that needs no I/O (the memory store), computed at once. */
export interface ImmediateStore {
  readonly claim: IdempotencyStore['claim'];
  readonly complete: IdempotencyStore['complete'];
  claimNow(key: string, options: ClaimOptions): ClaimResult;
  completeNow(key: string, token: string, options: CompleteOptions): boolean;
}

/**
 * Gives a store its answers at once beside its promises, for the receiver only: awaiting an
 * answer that is already there cost every request a promise and a turn of the microtask queue
 * for the claim, and again for the completion. Not enumerable, so a copy (`{ ...store }`) does
 * not carry it.
 */
export function withImmediateAnswers<S extends IdempotencyStore>(
  store: S,
  claimNow: ImmediateStore['claimNow'],
  completeNow: ImmediateStore['completeNow'],
): S {
  const immediate: ImmediateStore = { claim: store.claim, complete: store.complete, claimNow, completeNow };
  Object.defineProperty(store, IMMEDIATE, { value: immediate });
  return store;
}

/**
 * The store's answers at once, or `undefined`: only while its own `claim` and `complete` are in
 * place, so that a wrapper or a spy put over either is still the one called.
 */
export function immediateAnswersOf(store: IdempotencyStore): ImmediateStore | undefined {
  const immediate = (store as { [IMMEDIATE]?: ImmediateStore })[IMMEDIATE];
  if (immediate === undefined || immediate.claim !== store.claim || immediate.complete !== store.complete) {
    return undefined;
  }
  return immediate;
}
