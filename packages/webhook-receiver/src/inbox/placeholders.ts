const numbered = /* @__PURE__ */ new Map<string, string>();

/**
 * The inbox writes `?` placeholders; Postgres drivers want `$1, $2 …`. The inbox's statements
 * hold no other `?`, and there are a handful of them, so each is converted once and cached.
 */
export function numberPlaceholders(sql: string): string {
  let converted = numbered.get(sql);
  if (converted === undefined) {
    let position = 0;
    converted = sql.replace(/\?/g, () => `$${++position}`);
    if (numbered.size < 256) numbered.set(sql, converted);
  }
  return converted;
}

/** The number of rows a driver reports, however it spells it (`rowCount`, `affectedRows`, `numAffectedRows`). */
export function affectedOf(result: unknown): number {
  if (typeof result !== 'object' || result === null) return 0;
  const record = result as Record<string, unknown>;
  for (const field of ['rowCount', 'affectedRows', 'numAffectedRows', 'count'] as const) {
    const value = record[field];
    if (typeof value === 'number' || typeof value === 'bigint') return Number(value);
  }
  return 0;
}
