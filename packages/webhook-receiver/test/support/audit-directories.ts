import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { listAuditFiles, readAuditFile } from '../../src/audit-file.js';

/**
 * Fresh directories for a test file's JSON Lines logs, removed after each test. Call once at
 * the top of the test file: it registers the `afterEach`.
 */
export function auditDirectories(prefix: string): () => Promise<string> {
  const directories: string[] = [];
  afterEach(async () => {
    for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
  });
  return async () => {
    const directory = await mkdtemp(join(tmpdir(), prefix));
    directories.push(directory);
    return directory;
  };
}

/** Every line of the log in `directory`, file after file. */
export async function linesOf(directory: string): Promise<string[]> {
  const lines: string[] = [];
  for (const file of await listAuditFiles(directory, 'webhook-audit')) {
    for await (const line of readAuditFile(join(directory, file.name))) lines.push(line);
  }
  return lines;
}
