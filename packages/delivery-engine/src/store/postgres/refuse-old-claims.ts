/**
 * Schema version 4, Postgres: the contract step of the lease move that version 3 began.
 *
 * A worker of a release before schema version 3 claims by moving `next_attempt_at` to its lease
 * end and copying the old due time to `due_at`; it does not know `lease_until`, so it saw every
 * row a newer worker held (`next_attempt_at` untouched) as due and took it, and the newer
 * worker's results were refused (issue 32: all 8 rows in flight). Such a worker keeps running
 * through a rolling deploy and never runs a migration again, so the database must refuse it:
 * every statement that writes `due_at` now fails, before it touches a row, with an error that
 * says what to do. Only those claims wrote `due_at`; nothing of this release does (a claim
 * returns `next_attempt_at AS due_at`), and the old release's inserts, results and releases
 * keep working, so an old producer may still enqueue and an old worker's results in flight
 * are still recorded. A statement trigger costs nothing per row and leaves HOT updates alone.
 *
 * Leases the old workers took before this migration (`leased = 1`, no `lease_until`, the lease
 * end in `next_attempt_at`) get their end copied to `lease_until`, after the trigger is in place:
 * creating it waits for every claim in progress and holds new ones off until this commits.
 */
// The table names come in structurally: schema.ts lists this migration, so importing its types
// from there would close an import cycle.
export function refuseOldClaims(t: { readonly deliveries: string; readonly prefix: string }): string[] {
  const refuse = `${t.deliveries}_refuse_old_claim`;
  return [
    `CREATE OR REPLACE FUNCTION ${refuse}() RETURNS trigger LANGUAGE plpgsql AS $fn$
     BEGIN
       RAISE EXCEPTION 'refused a claim by a delivery worker older than schema version 3: it would take deliveries that newer workers are sending'
         USING ERRCODE = 'object_not_in_prerequisite_state',
               HINT = 'Stop every worker running @kyc/delivery-engine from before schema version 3, then start the new release; see docs/running-the-engine.md, "Rolling deploys".';
     END
     $fn$`,
    `CREATE TRIGGER ${t.prefix}deliveries_refuse_old_claim BEFORE UPDATE OF due_at ON ${t.deliveries}
       FOR EACH STATEMENT EXECUTE FUNCTION ${refuse}()`,
    `UPDATE ${t.deliveries} SET lease_until = next_attempt_at
      WHERE state = 'pending' AND leased = 1 AND lease_until IS NULL`,
  ];
}
