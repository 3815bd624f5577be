import { canonicalJson } from './canonical-json.js';
import { ownCanonicalJson } from './own-canonical-json.js';
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
 * Where a {@link Sha256} may keep a way to hash a text's UTF-8 without encoding it first
 * (`nodeSha256` does: node:crypto hashes a string as it is). Internal; `Symbol.for` so that two
 * copies of the package agree.
 */
export const SHA256_OF_TEXT: unique symbol = Symbol.for('@kyc/webhook-receiver.sha256OfText') as never;

/** SHA-256 of a text's UTF-8, as hex. */
export type TextSha256 = (text: string) => string | Promise<string>;

/** The text hasher that goes with `sha256`: its own when it has one, else UTF-8 then `sha256`. */
export function textSha256(sha256: Sha256): TextSha256 {
  const own = (sha256 as Sha256 & { readonly [SHA256_OF_TEXT]?: TextSha256 })[SHA256_OF_TEXT];
  return typeof own === 'function' ? own : (text) => sha256(encoder.encode(text));
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

/** Entries linked after a head, and each one's JSON line when asked for. */
export interface ChainedBatch {
  readonly entries: AuditEntry[];
  readonly lines: string[];
}

/**
 * Links records after `head` and writes each entry's line: the canonical text that was hashed,
 * with `,"hash":"…"` before its closing brace (valid JSON, and one serialisation per entry
 * rather than two; a verifier can hash the line without its hash field as it stands). A record of the receiver's own shape gets its canonical JSON from `ownCanonicalJson`
 * (fixed key order, no sort); any other from `canonicalJson`: the same text for the same entry.
 * A hasher that answers at once is not awaited: an await per entry costs a turn of the microtask queue.
 */
export async function chainBatch(
  head: AuditHead | undefined,
  records: readonly AuditRecord[],
  sha256OfText: TextSha256,
  withLines = true,
): Promise<ChainedBatch> {
  let seq = head?.seq ?? 0;
  let prevHash = head?.hash ?? GENESIS_HASH;
  const entries: AuditEntry[] = [];
  const lines: string[] = [];
  for (const record of records) {
    seq += 1;
    let canonical = ownCanonicalJson(record, seq, prevHash);
    if (canonical === undefined) {
      const { hash: _ignored, ...rest } = { ...record, v: 1, seq, prevHash } as AuditEntry;
      canonical = canonicalJson(rest);
    }
    const digest = sha256OfText(canonical);
    const hash = typeof digest === 'string' ? digest : await digest;
    const entry: AuditEntry = { ...record, v: 1, seq, prevHash, hash };
    entries.push(entry);
    if (withLines) lines.push(`${canonical.slice(0, -1)},"hash":"${hash}"}`);
    prevHash = hash;
  }
  return { entries, lines };
}

/** Links records after `head` (the start of a log when undefined), in order; `sha256` defaults to Web Crypto. */
export async function chainAuditRecords(
  head: AuditHead | undefined,
  records: readonly AuditRecord[],
  sha256: Sha256 = sha256Hex,
): Promise<AuditEntry[]> {
  return (await chainBatch(head, records, textSha256(sha256), false)).entries;
}
