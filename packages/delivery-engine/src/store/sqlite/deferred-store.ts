import type { DeliveryStore, StoreHealth } from '../store.js';

/** The SQLite store's methods, the optional ones it has included. */
export type SqliteStore = DeliveryStore<never> &
  Required<
    Pick<DeliveryStore<never>, 'acquireOwnership' | 'queueStats' | 'health' | 'openCredentials' | 'resealSecrets'>
  >;

/**
 * A store on a file that another live process owns: the file is opened only when this handle
 * reads, or once that owner is gone. Opening it is not harmless: an owner whose own process
 * copied its data folder has lost SQLite's locks on the shared-memory file with its lock, and the
 * next process to open the database resets that memory under it (the owner then dies of SIGBUS,
 * its sends in flight unrecorded). So a second engine is refused before it opens anything; a
 * reader in another process still opens the file, as any SQLite reader would. Another copy of the
 * package in the owner's own process is refused reads too: its SQLite library never sees the
 * owner's locks.
 */
export function deferredStore(
  open: () => SqliteStore,
  refusal: () => Error | undefined,
  { refuseReads }: { readonly refuseReads: boolean },
): SqliteStore {
  let store: SqliteStore | undefined;
  const opened = async () => {
    if (store === undefined && refuseReads) {
      const refused = refusal();
      if (refused !== undefined) throw refused;
    }
    store ??= open();
    return store;
  };
  const owning = async () => {
    if (store === undefined) {
      const refused = refusal();
      if (refused !== undefined) throw refused;
    }
    return opened();
  };
  return {
    // The engine migrates before it reads too: while the owner lives, the file is its to migrate
    // (it did when it opened it), and a reader opens it migrated.
    migrate: async () => {
      if (store === undefined && refusal() !== undefined) return;
      return (await opened()).migrate();
    },
    acquireOwnership: async () => (await owning()).acquireOwnership(),
    insert: async (delivery, options) => (await owning()).insert(delivery, options),
    claim: async (request) => (await owning()).claim(request),
    redeliver: async (id, now) => (await owning()).redeliver(id, now),
    resealSecrets: async () => (await owning()).resealSecrets(),
    complete: async (claim, attempt, next) => (await opened()).complete(claim, attempt, next),
    release: async (claim) => (await opened()).release(claim),
    nextDueAt: async (exclude) => (await opened()).nextDueAt(exclude),
    get: async (id) => (await opened()).get(id),
    list: async (filter) => (await opened()).list(filter),
    queueStats: async (now) => (await opened()).queueStats(now),
    // Only a claim's own store opens it, and a claim came from an opened store.
    openCredentials: (claim) => {
      if (store === undefined) throw new Error('openCredentials: the store has not claimed anything');
      return store.openCredentials(claim);
    },
    health: (): StoreHealth => store?.health() ?? { writable: true, fenced: false, heldResults: 0 },
    close: async () => store?.close(),
  };
}
