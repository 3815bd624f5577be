/**
 * An error for `InboxTransaction.commit()` to reject with when the database certainly did not
 * commit (as opposed to a lost connection, where nobody knows): the receiver then answers 500
 * like a failed handler, since nothing of the delivery was kept.
 */
export function rolledBackError(message: string): Error {
  return Object.assign(new Error(message), { inboxRolledBack: true });
}

/** Whether `commit()` rejected with {@link rolledBackError}. */
export function isRolledBack(error: unknown): boolean {
  return error instanceof Error && (error as { inboxRolledBack?: unknown }).inboxRolledBack === true;
}
