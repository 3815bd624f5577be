import { canonicalJson } from './canonical-json.js';
import type { AuditEntry, AuditHead, AuditRecord, Sha256 } from './types.js';

/** `prevHash` of the first entry of a log. */
export const GENESIS_HASH = '0'.repeat(64);

const encoder = /* @__PURE__ */ new TextEncoder();

function hex(bytes: ArrayBuffer): string {
  let text = '';
  for (const byte of new Uint8Array(bytes)) text += byte.toString(16).padStart(2, '0');
  return text;
}

/** Lower-case hex SHA-256 of bytes, with Web Crypto (every runtime). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}

/**
 * The hash of an entry: SHA-256 of the UTF-8 canonical JSON (sorted keys, RFC 8785) of every
 * field except `hash` itself — `v`, `seq` and `prevHash` included, so an entry cannot be moved.
 */
export async function hashAuditEntry(
  entry: Omit<AuditEntry, 'hash'> | AuditEntry,
  sha256: Sha256 = sha256Hex,
): Promise<string> {
  const { hash: _ignored, ...rest } = entry as AuditEntry;
  return sha256(encoder.encode(canonicalJson(rest)));
}

/** Links records after `head` (the start of a log when undefined), in order; `sha256` defaults to Web Crypto. */
export async function chainAuditRecords(
  head: AuditHead | undefined,
  records: readonly AuditRecord[],
  sha256: Sha256 = sha256Hex,
): Promise<AuditEntry[]> {
  let seq = head?.seq ?? 0;
  let prevHash = head?.hash ?? GENESIS_HASH;
  const entries: AuditEntry[] = [];
  for (const record of records) {
    seq += 1;
    const unhashed = { ...record, v: 1 as const, seq, prevHash };
    const hash = await hashAuditEntry(unhashed, sha256);
    entries.push({ ...unhashed, hash });
    prevHash = hash;
  }
  return entries;
}
