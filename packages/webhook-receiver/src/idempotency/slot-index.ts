/** Key → slot of the memory idempotency store; see {@link createSlotIndex}. */
export interface SlotIndex {
  /** The hash `find` and `set` take: computed once per operation, used for both. */
  hash(key: string): number;
  /** The slot holding `key`, or -1. */
  find(key: string, hash: number): number;
  /** Files `key` under `slot`, which holds no key. */
  set(key: string, hash: number, slot: number): void;
  /** Forgets the key of `slot`, which holds one. */
  delete(slot: number): void;
  /** Makes room for `slots` slots (at least as many as before). */
  grow(slots: number): void;
}

/**
 * An open-addressing hash table (linear probing, at most half full) over typed arrays, keys kept
 * in one array by slot. A Map did the same job, but a lookup in a large one reaches into several
 * cold objects (its entries, each candidate key string); here a miss reads one cache line of an
 * Int32Array and compares a key only when the hashes match, which halved the store's cost
 * beside a parser's allocations. Deleting shifts later entries back, so there are no tombstones.
 * The hash is seeded per process: only authenticated senders choose keys, and they cannot
 * aim for collisions without the seed. The seed is drawn at the first hash, not here: a store is
 * often made at a module's top level, where workerd refuses random values (and the whole Worker).
 */
export function createSlotIndex(slots: number): SlotIndex {
  let seed: number | undefined;
  const keys: (string | undefined)[] = [];
  let hashes = new Int32Array(0);
  let table = new Int32Array(0); // slot + 1 per position; 0: empty
  let mask = 0;

  function place(slot: number): void {
    let position = (hashes[slot] ?? 0) & mask;
    while (table[position] !== 0) position = (position + 1) & mask;
    table[position] = slot + 1;
  }

  function grow(count: number): void {
    const old = hashes;
    hashes = new Int32Array(count);
    hashes.set(old);
    table = new Int32Array(2 ** Math.ceil(Math.log2(2 * count)));
    mask = table.length - 1;
    for (let slot = 0; slot < keys.length; slot++) if (keys[slot] !== undefined) place(slot);
  }
  grow(slots);

  return {
    hash(key) {
      seed ??= crypto.getRandomValues(new Uint32Array(1))[0] ?? 0;
      // FNV-1a, then a murmur3 finaliser so that the low bits (the position) depend on every character.
      let hash = seed ^ 0x811c9dc5;
      for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
      hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
      return hash ^ (hash >>> 13);
    },
    find(key, hash) {
      for (let position = hash & mask; ; position = (position + 1) & mask) {
        const slot = (table[position] ?? 0) - 1;
        if (slot === -1) return -1;
        if (hashes[slot] === hash && keys[slot] === key) return slot;
      }
    },
    set(key, hash, slot) {
      keys[slot] = key;
      hashes[slot] = hash;
      place(slot);
    },
    delete(slot) {
      if (keys[slot] === undefined) return;
      keys[slot] = undefined;
      let hole = (hashes[slot] ?? 0) & mask;
      while (table[hole] !== slot + 1) hole = (hole + 1) & mask;
      // Backward-shift deletion: an entry after the hole moves into it unless its home position
      // lies cyclically after the hole (then the hole does not break its probe sequence).
      for (let position = (hole + 1) & mask; table[position] !== 0; position = (position + 1) & mask) {
        const home = (hashes[(table[position] ?? 0) - 1] ?? 0) & mask;
        const between = hole <= position ? home > hole && home <= position : home > hole || home <= position;
        if (!between) {
          table[hole] = table[position] ?? 0;
          hole = position;
        }
      }
      table[hole] = 0;
    },
    grow,
  };
}
