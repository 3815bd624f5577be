import { GENESIS_HASH, hashAuditEntry } from './hash-audit-entry.js';
import type { AuditEntry, AuditHead, Sha256 } from './types.js';

/** Why {@link verifyAuditLog} stopped. */
export type AuditBreakReason =
  /** The line is not JSON, or not an entry (missing `seq`, `prevHash` or `hash`). */
  | 'unreadable'
  /** The entry's content does not hash to its `hash`: it was edited. */
  | 'hash_mismatch'
  /** `prevHash` is not the previous entry's `hash`: an entry before it was removed, inserted or moved. */
  | 'broken_link'
  /** `seq` does not follow the previous entry's: an entry was removed, inserted or moved. */
  | 'seq_gap'
  /** The log does not end where `expectedHead` says: its end was cut off (or entries were added). */
  | 'head_mismatch';

/** The outcome of {@link verifyAuditLog}. */
export type AuditVerification =
  | { readonly ok: true; readonly count: number; readonly head: AuditHead | undefined }
  | {
      readonly ok: false;
      /** 1-based position of the first bad entry in what was read (the line number of a single file). */
      readonly position: number;
      /** That entry's `seq`, when it could be read. */
      readonly seq: number | undefined;
      readonly reason: AuditBreakReason;
      /** What is wrong, in a sentence. */
      readonly message: string;
      /** Entries that verified before the break. */
      readonly verified: number;
    };

/** Options of {@link verifyAuditLog}. */
export interface VerifyAuditLogOptions {
  /**
   * Where the log starts when it is not the beginning of the chain (a rotated file, an archive):
   * the head of the entries before it. Default: the chain's start (`seq` 1, `prevHash` of 64 zeros).
   */
  readonly after?: AuditHead;
  /**
   * The head you recorded elsewhere (the last `seq` and `hash`): without it, entries cut off
   * the end of a log cannot be noticed, since what remains is a valid chain.
   */
  readonly expectedHead?: AuditHead;
  /** The SHA-256 to recompute hashes with; default Web Crypto (`nodeSha256` is faster on Node). */
  readonly sha256?: Sha256;
}

function isEntry(value: unknown): value is AuditEntry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Partial<AuditEntry>;
  return Number.isSafeInteger(entry.seq) && typeof entry.prevHash === 'string' && typeof entry.hash === 'string';
}

/**
 * Walks an audit log in order and reports the first entry where the hash chain breaks: an
 * edited entry (its hash no longer matches), a removed, inserted or reordered one (its link or
 * its `seq` no longer follows), and — given `expectedHead` — a cut-off end. Accepts entries or
 * JSON lines (blank lines are skipped), from an array, a generator or an async stream such as
 * `readAuditFile` or `readPostgresAuditLog`. Runs on every runtime (Web Crypto).
 *
 * It proves the entries are the ones written, in that order, since the start (or `after`); it
 * does not prove who wrote them: whoever can rewrite the whole log can rebuild a valid chain.
 * Keep the head somewhere the writer cannot change and pass it as `expectedHead` (docs/audit.md).
 *
 * @example
 * const result = await verifyAuditLog(readAuditFile('audit/webhook-audit-000000000001.jsonl'));
 * if (!result.ok) console.error(`entry ${result.position}: ${result.message}`);
 */
export async function verifyAuditLog(
  entries: Iterable<AuditEntry | string> | AsyncIterable<AuditEntry | string>,
  options: VerifyAuditLogOptions = {},
): Promise<AuditVerification> {
  let previous: AuditHead | undefined = options.after;
  let position = 0;
  let verified = 0;
  const broken = (reason: AuditBreakReason, seq: number | undefined, message: string): AuditVerification => ({
    ok: false,
    position,
    seq,
    reason,
    message,
    verified,
  });

  for await (const item of entries) {
    position += 1;
    let value: unknown = item;
    if (typeof item === 'string') {
      // A blank line keeps its number (positions are line numbers) but is not an entry.
      if (item.trim() === '') continue;
      try {
        value = JSON.parse(item);
      } catch {
        return broken('unreadable', undefined, 'the line is not JSON (cut short or edited).');
      }
    }
    if (!isEntry(value))
      return broken('unreadable', undefined, 'the line is not an audit entry (seq, prevHash, hash).');
    const expectedSeq = (previous?.seq ?? 0) + 1;
    const expectedPrev = previous?.hash ?? GENESIS_HASH;
    if ((await hashAuditEntry(value, options.sha256)) !== value.hash)
      return broken(
        'hash_mismatch',
        value.seq,
        `entry seq ${value.seq} was changed: its content does not match its hash.`,
      );
    if (value.prevHash !== expectedPrev)
      return broken(
        'broken_link',
        value.seq,
        `entry seq ${value.seq} does not link to the entry before it: an entry was removed, inserted or moved.`,
      );
    if (value.seq !== expectedSeq)
      return broken('seq_gap', value.seq, `entry seq ${value.seq} where seq ${expectedSeq} was expected.`);
    previous = { seq: value.seq, hash: value.hash };
    verified += 1;
  }
  const expected = options.expectedHead;
  if (expected !== undefined && (previous?.seq !== expected.seq || previous?.hash !== expected.hash)) {
    position += 1;
    return broken(
      'head_mismatch',
      previous?.seq,
      `the log ends at seq ${previous?.seq ?? 0}, not at the expected head seq ${expected.seq}: entries were cut off the end or added.`,
    );
  }
  return { ok: true, count: verified, head: previous };
}
