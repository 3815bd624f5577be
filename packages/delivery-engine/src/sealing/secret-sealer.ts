import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomFillSync } from 'node:crypto';
import { DeliveryEngineError } from '../delivery-engine-error.js';
import { checkSealingKeys, type SealingKey } from './sealing-key.js';

/** What every sealed value starts with; the key id and the sealed bytes follow. */
export const SEALED_PREFIX = 'kyc-sealed:1:';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Random IVs taken from a pool filled 4 KiB at a time: `randomBytes(12)` per seal cost about as
 * much as the cipher's own work (3 µs of the 14 µs a seal took). Every IV is still fresh random
 * bytes, never reused.
 */
const IV_POOL_BYTES = 4096;
let ivPool = Buffer.alloc(0);
let ivOffset = IV_POOL_BYTES;
function nextIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    ivPool = randomFillSync(Buffer.allocUnsafe(IV_POOL_BYTES));
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

/**
 * Seals and opens short secrets (Auth Keys, signing secrets) with AES-256-GCM. A sealed value is
 * text: `kyc-sealed:1:<key id>:<base64url of iv, ciphertext and tag>`. The `context` given to
 * `seal` (where the value lives: a table, a column and a row id) is authenticated with it, so a
 * sealed value copied into another row does not open there.
 */
export interface SecretSealer {
  /** The id of the key that seals (the first key given). */
  readonly sealingKeyId: string;
  /** Every key id this sealer opens. */
  readonly keyIds: readonly string[];
  seal(secret: string, context: string): string;
  /**
   * The secret a sealed value holds. Throws `sealing_key_missing` when the value was sealed
   * with a key id this sealer lacks, `sealing_key_wrong` when the key under that id does not
   * open it; never returns garbage.
   */
  open(sealed: string, context: string): string;
}

/** Whether a stored value is sealed (values written before sealing, or by hand, are not). */
export function isSealed(value: string): boolean {
  return value.startsWith(SEALED_PREFIX);
}

/** The key id a sealed value names, or `undefined` for a value that is not sealed. */
export function keyIdOf(value: string): string | undefined {
  if (!isSealed(value)) return undefined;
  const end = value.indexOf(':', SEALED_PREFIX.length);
  return end < 0 ? undefined : value.slice(SEALED_PREFIX.length, end);
}

/**
 * A sealer over a key ring: the first key seals, every key opens. Key objects are made once
 * here; a seal or an open then costs one cipher (a few microseconds for a key-sized secret).
 *
 * @example
 * ```ts
 * const sealer = createSecretSealer([{ id: 'k2', key: process.env.NEW_KEY }, { id: 'k1', key: process.env.OLD_KEY }]);
 * const stored = sealer.seal(authKey, `companies.auth_key:${companyId}`);
 * sealer.open(stored, `companies.auth_key:${companyId}`) === authKey; // true
 * ```
 */
export function createSecretSealer(keys: readonly SealingKey[]): SecretSealer {
  const checked = checkSealingKeys(keys, 'createSecretSealer');
  const objects = new Map<string, KeyObject>(checked.map((key) => [key.id, createSecretKey(key.bytes)]));
  const current = checked[0] as (typeof checked)[number];
  const sealing = objects.get(current.id) as KeyObject;
  const prefix = `${SEALED_PREFIX}${current.id}:`;
  return {
    sealingKeyId: current.id,
    keyIds: checked.map((key) => key.id),
    seal(secret, context) {
      const iv = nextIv();
      const cipher = createCipheriv(ALGORITHM, sealing, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = cipher.update(secret, 'utf8');
      const final = cipher.final();
      return `${prefix}${Buffer.concat([iv, body, final, cipher.getAuthTag()]).toString('base64url')}`;
    },
    open(sealed, context) {
      const id = keyIdOf(sealed);
      if (id === undefined) {
        throw new DeliveryEngineError('sealing_key_wrong', `a stored secret at ${context} is not a sealed value`);
      }
      const key = objects.get(id);
      if (key === undefined) {
        throw new DeliveryEngineError(
          'sealing_key_missing',
          `a stored secret at ${context} was sealed with key id "${id}", which was not given: add it to the sealing keys`,
        );
      }
      const bytes = Buffer.from(sealed.slice(SEALED_PREFIX.length + id.length + 1), 'base64url');
      try {
        if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('too short');
        const decipher = createDecipheriv(ALGORITHM, key, bytes.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        const opened = decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES), undefined, 'utf8');
        return opened + decipher.final('utf8');
      } catch (error) {
        throw new DeliveryEngineError(
          'sealing_key_wrong',
          `the key given as id "${id}" does not open the secret stored at ${context}: it is another key than the one that sealed it, or the value was altered`,
          { cause: error },
        );
      }
    },
  };
}
