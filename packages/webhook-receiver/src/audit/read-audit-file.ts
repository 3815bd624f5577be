import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * The lines of a JSON Lines audit file, in order, read as a stream (a file of any size), for
 * {@link audit.verifyAuditLog | verifyAuditLog} or for your own queries.
 *
 * @example
 * for await (const line of readAuditFile(path)) {
 *   const entry = JSON.parse(line);
 *   if (entry.sessionId === 'sess_123') console.log(entry.receivedAt, entry.outcome, entry.kycStatus);
 * }
 */
export async function* readAuditFile(path: string): AsyncGenerator<string> {
  const lines = createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  try {
    yield* lines;
  } finally {
    lines.close();
  }
}
