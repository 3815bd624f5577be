/**
 * The sealing key of every Postgres store the chaos suite makes, the same in each worker
 * process, as an operator's key is on every worker: the store refuses to keep a secret without one.
 */
export const CHAOS_SEALING_KEYS = [{ id: 'chaos-key', key: Buffer.alloc(32, 11).toString('base64') }] as const;
