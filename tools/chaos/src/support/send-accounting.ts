import type { DeliveryRecord } from '@kyc/delivery-engine';

/**
 * Every send of an event against its attempt log: an event "sent more than once" reached the
 * receiver more often than its log has attempts; it is "explained" when the log's attempts count
 * at least that many unrecorded sends (`unrecordedSends`: the sends before an attempt whose
 * result was never recorded, a crash or a fenced-off worker). Issue 32's bar: every extra send
 * is in the log.
 */
export function accountSends(
  records: readonly DeliveryRecord[],
  receiptsPerId: ReadonlyMap<string, number>,
): { sentMoreThanOnce: string[]; explained: number } {
  const sentMoreThanOnce: string[] = [];
  let explained = 0;
  for (const record of records) {
    const extra = (receiptsPerId.get(record.id) ?? 0) - record.attemptLog.length;
    if (extra <= 0) continue;
    sentMoreThanOnce.push(record.id);
    const logged = record.attemptLog.reduce((sum, attempt) => sum + unrecordedSends(attempt), 0);
    if (logged >= extra) explained++;
  }
  return { sentMoreThanOnce, explained };
}

/** The attempt row's count of unrecorded sends before it (0 on rows written before schema version 4). */
function unrecordedSends(attempt: object): number {
  const value: unknown = (attempt as { unrecordedSends?: unknown }).unrecordedSends;
  return typeof value === 'number' ? value : 0;
}

/** Receipts per event id. */
export function countPerId(receipts: readonly { readonly id: string }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { id } of receipts) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}
