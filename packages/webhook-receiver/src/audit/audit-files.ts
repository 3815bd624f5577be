import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** One file of a JSON Lines audit log. */
export interface AuditFile {
  readonly name: string;
  /** `seq` of its first entry, from its name. */
  readonly firstSeq: number;
  /** UTC day it was started, `YYYYMMDD`. */
  readonly day: string;
  readonly size: number;
}

/** The name of a log file: sorting names sorts files in chain order. */
export function auditFileName(prefix: string, firstSeq: number, day: string): string {
  return `${prefix}-${String(firstSeq).padStart(12, '0')}-${day}.jsonl`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
}

/** The log's files in `directory`, oldest first (other files are left alone). */
export async function listAuditFiles(
  directory: string,
  prefix: string,
  names?: readonly string[],
): Promise<AuditFile[]> {
  const pattern = new RegExp(`^${escapeRegExp(prefix)}-(\\d{12})-(\\d{8})\\.jsonl$`);
  const files: AuditFile[] = [];
  for (const name of names ?? (await readdir(directory))) {
    const match = pattern.exec(name);
    if (match === null) continue;
    const { size } = await stat(join(directory, name));
    files.push({ name, firstSeq: Number(match[1]), day: match[2] as string, size });
  }
  return files.sort((a, b) => a.firstSeq - b.firstSeq || a.name.localeCompare(b.name));
}
