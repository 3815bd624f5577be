import { type DeliveryRecord, sqliteDeliveryStore } from '@kyc/delivery-engine';
import Database from 'better-sqlite3';

/** Every delivery in a SQLite file, read back through the store's public API. */
export async function readSqliteRecords(path: string): Promise<DeliveryRecord[]> {
  const raw = new Database(path);
  const ids = (raw.prepare('SELECT id FROM deliveries').all() as { id: string }[]).map((row) => row.id);
  raw.close();
  const store = sqliteDeliveryStore({ path });
  const records: DeliveryRecord[] = [];
  for (const id of ids) {
    const record = await store.get(id);
    if (record !== undefined) records.push(record);
  }
  await store.close();
  return records;
}
