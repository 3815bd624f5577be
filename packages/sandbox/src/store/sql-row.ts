/** A row as better-sqlite3 returns it. */
export type Row = Record<string, unknown>;

/** A nullable TEXT column: SQLite's NULL becomes `undefined`. */
export const optionalText = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A nullable INTEGER column: SQLite's NULL becomes `undefined`. */
export const optionalInteger = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
