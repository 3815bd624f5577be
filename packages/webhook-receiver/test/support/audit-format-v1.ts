import { createHash } from 'node:crypto';

/**
 * The audit chain's format as released before issue 21 (commit 4d5543f), frozen here so that a
 * log written by today's code can be checked against it: that release's `canonicalJson` and
 * entry hash, and its walk of the chain. Not to be changed with the code it guards.
 */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
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

function hashOf(entry: Record<string, unknown>): string {
  const { hash: _ignored, ...rest } = entry;
  return createHash('sha256')
    .update(new TextEncoder().encode(canonicalJson(rest)))
    .digest('hex');
}

/** Entries of a log in order, checked as that release's `verifyAuditLog` did: 'ok' or what broke where. */
export function verifyAsReleasedBefore(lines: readonly string[]): string {
  let previous: { seq: number; hash: string } | undefined;
  for (const [index, line] of lines.entries()) {
    const entry = JSON.parse(line) as Record<string, unknown> & { seq: number; prevHash: string; hash: string };
    if (hashOf(entry) !== entry.hash) return `line ${index + 1}: hash_mismatch`;
    if (entry.prevHash !== (previous?.hash ?? '0'.repeat(64))) return `line ${index + 1}: broken_link`;
    if (entry.seq !== (previous?.seq ?? 0) + 1) return `line ${index + 1}: seq_gap`;
    previous = { seq: entry.seq, hash: entry.hash };
  }
  return 'ok';
}
