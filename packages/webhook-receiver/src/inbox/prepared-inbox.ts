import type { InboxStatements } from './statements.js';
import type { InboxDatabase, InboxSettings } from './types.js';

/** An inbox with its statements built once, as the receiver, `migrateInbox` and `pruneInbox` use it. */
export interface PreparedInbox<Tx> {
  readonly database: InboxDatabase<Tx>;
  readonly settings: InboxSettings;
  readonly statements: InboxStatements;
}
