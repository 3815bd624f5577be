/**
 * Reduces a property name to its casing-free form: `session_id`, `SessionID`, `session-id`
 * and `Session Id` all become `sessionid`. The specification does not show the real property
 * names of the status-shaped body, so every casing and separator variant must match.
 */
export function canonicalKey(key: string): string {
  return key.replace(/[\s_-]+/g, '').toLowerCase();
}

/**
 * Builds a lookup from canonical key to field name. Aliases map extra canonical spellings
 * (`verificationstatus`) onto a field (`status`).
 */
export function fieldLookup<F extends string>(
  fields: readonly F[],
  aliases: Readonly<Record<string, F>> = {},
): ReadonlyMap<string, F> {
  const lookup = new Map<string, F>();
  for (const field of fields) {
    lookup.set(field, field);
    lookup.set(canonicalKey(field), field);
  }
  for (const [alias, field] of Object.entries(aliases)) lookup.set(canonicalKey(alias), field);
  return lookup;
}

/** The value found for each known field of a group (JSON never holds `undefined`). */
export type FoundFields<F extends string> = { readonly [K in F]?: unknown };

/**
 * Collects the values of `source` under the known fields of `lookup`, whatever the casing of
 * their property names. When two spellings of one field are present, the exact spelling wins
 * and the other is reported. A body that uses only exact names (what the service sends) is
 * returned as it is, without copying.
 */
export function pickFields<F extends string>(
  source: Readonly<Record<string, unknown>>,
  lookup: ReadonlyMap<string, F>,
  onDuplicate: (field: F, ignoredKey: string) => void,
): FoundFields<F> {
  const keys = Object.keys(source);
  let index = 0;
  while (index < keys.length && isExactOrUnknown(keys[index] as string, lookup)) index++;
  if (index === keys.length) return source as FoundFields<F>;

  const found: { [K in F]?: unknown } = {};
  const spelledAs = new Map<F, string>();
  for (const key of keys) {
    const field = lookup.get(key) ?? lookup.get(canonicalKey(key));
    if (field === undefined) continue;
    const previous = spelledAs.get(field);
    if (previous === undefined || (key === field && previous !== field)) {
      found[field] = source[key];
      spelledAs.set(field, key);
      if (previous !== undefined) onDuplicate(field, previous);
    } else {
      onDuplicate(field, key);
    }
  }
  return found;
}

/** True when `key` is a field's exact name, or matches no field in any casing. */
function isExactOrUnknown<F extends string>(key: string, lookup: ReadonlyMap<string, F>): boolean {
  const field = lookup.get(key);
  if (field !== undefined) return field === key;
  return !lookup.has(canonicalKey(key));
}

/** True for a plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
