import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { listAuditFiles } from './audit-files.js';
import { nodeSha256 } from './node-sha256.js';
import { readAuditFile } from './read-audit-file.js';
import type { AuditHead } from './types.js';
import { type AuditVerification, verifyAuditLog } from './verify-audit-log.js';

/** The outcome of {@link verifyAuditFiles}: the verification, and the file the break is in. */
export type FilesVerification = AuditVerification & { readonly file?: string };

/** Expands directories into their log files (oldest first); files are taken as given, in order. */
async function expand(paths: readonly string[], prefix: string): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    if ((await stat(path)).isDirectory()) {
      for (const file of await listAuditFiles(path, prefix)) files.push(join(path, file.name));
    } else files.push(path);
  }
  return files;
}

/**
 * Verifies JSON Lines audit files as one chain, each file continuing from the head of the one
 * before; a directory stands for its log files, oldest first. A break is reported with its file
 * and line (`position`). What `kyc-audit verify <paths>` runs (Node).
 *
 * @example
 * const result = await verifyAuditFiles(['/var/lib/kyc/audit'], { expectedHead: { seq: 1234, hash } });
 * if (!result.ok) console.error(`${result.file}:${result.position}: ${result.message}`);
 */
export async function verifyAuditFiles(
  paths: readonly string[],
  options: { readonly prefix?: string; readonly after?: AuditHead; readonly expectedHead?: AuditHead } = {},
): Promise<FilesVerification> {
  const files = await expand(paths, options.prefix ?? 'webhook-audit');
  let after = options.after;
  let count = 0;
  for (const [index, file] of files.entries()) {
    const last = index === files.length - 1;
    const result = await verifyAuditLog(readAuditFile(file), {
      sha256: nodeSha256,
      ...(after === undefined ? {} : { after }),
      ...(last && options.expectedHead !== undefined ? { expectedHead: options.expectedHead } : {}),
    });
    if (!result.ok) return { ...result, verified: count + result.verified, file };
    count += result.count;
    after = result.head ?? after;
  }
  if (files.length === 0 && options.expectedHead !== undefined) {
    return verifyAuditLog([], { expectedHead: options.expectedHead });
  }
  return { ok: true, count, head: after };
}
