/**
 * JSON with object keys sorted by UTF-16 code units and no blanks: the same text for the same
 * value, whatever order a reader (a database's json type, another language) keeps the keys in.
 * For the values an audit entry holds (strings, integers, booleans, null, plain objects) this is
 * RFC 8785 (JCS), so a verifier in another language can recompute the hashes.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    // undefined, functions and symbols have no JSON form: refuse rather than hash something else.
    if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form.');
    return text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const names = Object.keys(record)
    .filter((name) => record[name] !== undefined)
    .sort();
  return `{${names.map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`).join(',')}}`;
}
