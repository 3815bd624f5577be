import type { ClaimOptions, ClaimResult, CompleteOptions, IdempotencyStore } from './store.js';

const IN_PROCESS = Symbol('kyc.idempotency.inProcess');

/** The answers of a store that needs no I/O (the memory store), computed at once. */
export interface InProcessStore {
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
export function markInProcess<S extends IdempotencyStore>(
  store: S,
  claimNow: InProcessStore['claimNow'],
  completeNow: InProcessStore['completeNow'],
): S {
  const inProcess: InProcessStore = { claim: store.claim, complete: store.complete, claimNow, completeNow };
  Object.defineProperty(store, IN_PROCESS, { value: inProcess });
  return store;
}

/**
 * The store's answers at once, or `undefined`: only while its own `claim` and `complete` are in
 * place, so that a wrapper or a spy put over either is still the one called.
 */
export function inProcessOf(store: IdempotencyStore): InProcessStore | undefined {
  const inProcess = (store as { [IN_PROCESS]?: InProcessStore })[IN_PROCESS];
  if (inProcess === undefined || inProcess.claim !== store.claim || inProcess.complete !== store.complete) {
    return undefined;
  }
  return inProcess;
}
