import { inboxDdl } from '../../src/inbox.js';

/** The text of `sql/inbox.<dialect>.sql`: the statements `migrateInbox` runs, with the default table. */
export function inboxSqlFile(dialect: 'postgres' | 'mysql'): string {
  const header = [
    `-- The transactional inbox of @kyc/webhook-receiver (${dialect === 'postgres' ? 'Postgres' : 'MySQL / MariaDB'}).`,
    '-- The same statements migrateInbox(inbox) runs, for your own migration tool. With another',
    '-- table name (inbox options: table), rename kyc_webhook_inbox everywhere.',
  ];
  const statements = inboxDdl(dialect, 'kyc_webhook_inbox').map((statement) => `${statement};`);
  return `${header.join('\n')}\n\n${statements.join('\n\n')}\n`;
}
