import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { DeliveryEngineError } from '../delivery-engine-error.js';
import { formatSealingKeys, generateSealingKey, parseSealingKeys, type SealingKey } from './sealing-key.js';

const HEADER = `# Sealing keys of @kyc/delivery-engine: <id>:<base64 key>, the first one seals.
# Keep this file out of the backups of the data it seals; without it those secrets are lost.
`;

function fail(path: string, what: string, error: unknown): DeliveryEngineError {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new DeliveryEngineError('invalid_option', `sealing key file ${path}: cannot ${what} (${code})`, {
    cause: error,
  });
}

/** Writes `text` to a new file beside `path`, readable by its owner only, synced to disk. */
function writeTemporary(path: string, text: string): string {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return temporary;
}

/** Syncs a folder, so a file just linked or renamed into it survives a power loss. */
function syncFolder(path: string): void {
  const fd = openSync(dirname(path), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a key file (`<id>:<base64>` lines, the first seals). With `create`, a missing file is
 * made first with one new key, mode 0600, without ever replacing a file another process made
 * at the same moment (it is linked into place, not renamed).
 *
 * @example
 * ```ts
 * const keys = loadSealingKeys('/etc/kyc/sealing.keys', { create: true });
 * ```
 */
export function loadSealingKeys(path: string, options: { readonly create?: boolean } = {}): SealingKey[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || options.create !== true)
      throw fail(path, 'read it', error);
    let temporary: string | undefined;
    try {
      temporary = writeTemporary(path, `${HEADER}${formatSealingKeys([generateSealingKey()])}\n`);
      linkSync(temporary, path);
      syncFolder(path);
    } catch (made) {
      if ((made as NodeJS.ErrnoException).code !== 'EEXIST') throw fail(path, 'create it', made);
    } finally {
      if (temporary !== undefined) unlinkSync(temporary);
    }
    return loadSealingKeys(path);
  }
  return parseSealingKeys(text, `sealing key file ${path}`);
}

/**
 * Replaces a key file with `keys` (the first seals), mode 0600, atomically: a crash leaves the
 * old file or the new one, never half of one. Rotate in three steps so that no sealed value is
 * ever left without its key: save `[newKey, oldKey]`, re-seal, then save `[newKey]`.
 */
export function saveSealingKeys(path: string, keys: readonly SealingKey[]): void {
  const text = `${HEADER}${formatSealingKeys(keys)}\n`;
  let temporary: string | undefined;
  try {
    temporary = writeTemporary(path, text);
    renameSync(temporary, path);
    temporary = undefined;
    syncFolder(path);
  } catch (error) {
    throw fail(path, 'write it', error);
  } finally {
    if (temporary !== undefined) unlinkSync(temporary);
  }
}
