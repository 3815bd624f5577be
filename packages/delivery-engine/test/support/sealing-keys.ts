/**
 * The sealing key of every Postgres store the tests make, the same in each worker process (as
 * an operator's key is on every worker): the store refuses to keep a secret without one.
 */
export const TEST_SEALING_KEYS = [{ id: 'test-key', key: Buffer.alloc(32, 7).toString('base64') }] as const;
