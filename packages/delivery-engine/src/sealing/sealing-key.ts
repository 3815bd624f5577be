import { randomBytes } from 'node:crypto';
import { DeliveryEngineError } from '../delivery-engine-error.js';

/**
 * A key that seals the Auth Keys and signing secrets a store keeps (AES-256-GCM): 32 random
 * bytes under an id of your choosing. The id is stored beside each sealed value, so a store
 * knows which key opens what, and says which id it needs when it is missing.
 */
export interface SealingKey {
  /** 1–64 of `A–Z a–z 0–9 . _ -`; never reuse an id for another key. */
  readonly id: string;
  /** The 32 key bytes, or their base64 (44 characters). */
  readonly key: string | Uint8Array;
}

/** A key checked and decoded: its id and its 32 bytes. */
export interface CheckedSealingKey {
  readonly id: string;
  readonly bytes: Buffer;
}

const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/]{43}=$/;

function invalid(message: string): DeliveryEngineError {
  return new DeliveryEngineError('invalid_option', message);
}

/** Checks one key; the message names the key by its id (or position), never its bytes. */
export function checkSealingKey(key: SealingKey, where: string): CheckedSealingKey {
  if (key === null || typeof key !== 'object' || typeof key.id !== 'string' || !KEY_ID.test(key.id)) {
    throw invalid(`${where}: a sealing key is { id, key } with an id of 1–64 letters, digits, ".", "_" or "-"`);
  }
  const { key: material } = key;
  let bytes: Buffer | undefined;
  if (typeof material === 'string' && BASE64.test(material)) bytes = Buffer.from(material, 'base64');
  else if (material instanceof Uint8Array && material.byteLength === KEY_BYTES) bytes = Buffer.from(material);
  if (bytes?.length !== KEY_BYTES) {
    throw invalid(`${where}: the key of id "${key.id}" must be ${KEY_BYTES} bytes, or their base64 (44 characters)`);
  }
  return { id: key.id, bytes };
}

/** Checks a key ring: at least one key, ids distinct. The first seals; every one opens. */
export function checkSealingKeys(keys: readonly SealingKey[], where: string): CheckedSealingKey[] {
  if (!Array.isArray(keys) || keys.length === 0) {
    throw invalid(`${where}: give at least one sealing key, { id, key }; the first one seals`);
  }
  const checked = keys.map((key, position) => checkSealingKey(key, `${where}[${position}]`));
  const ids = new Set(checked.map((key) => key.id));
  if (ids.size !== checked.length) throw invalid(`${where}: two keys share one id; every key needs its own`);
  return checked;
}

/**
 * A new sealing key: 32 bytes from the system's random source, under an id made of the date and
 * four random hex digits (`k20261129-3fa2`), so ids of successive keys sort by age.
 *
 * @example
 * ```ts
 * const key = generateSealingKey();
 * process.stdout.write(`${formatSealingKeys([key])}\n`); // k20261129-3fa2:base64…
 * ```
 */
export function generateSealingKey(now: Date = new Date()): SealingKey {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '');
  return { id: `k${day}-${randomBytes(2).toString('hex')}`, key: randomBytes(KEY_BYTES).toString('base64') };
}

/**
 * Reads keys written as `<id>:<base64>`, one or several separated by spaces, commas or lines
 * (`#` starts a comment line): the form of `KYC_SECRETS_KEY` and of key files. The first seals.
 *
 * @example
 * ```ts
 * const keys = parseSealingKeys(process.env.KYC_SEALING_KEYS ?? ''); // "k2:… k1:…" during a rotation
 * ```
 */
export function parseSealingKeys(text: string, where = 'parseSealingKeys'): SealingKey[] {
  if (typeof text !== 'string') throw invalid(`${where}: expected text of <id>:<base64 key> entries`);
  const entries = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join(' ')
    .split(/[\s,]+/)
    .filter((entry) => entry !== '');
  const keys = entries.map((entry, position) => {
    const colon = entry.indexOf(':');
    // The entry itself is never repeated: it holds the key.
    if (colon <= 0) throw invalid(`${where}: entry ${position + 1} is not <id>:<base64 key>`);
    return { id: entry.slice(0, colon), key: entry.slice(colon + 1) };
  });
  checkSealingKeys(keys, where);
  return keys;
}

/** Writes keys as {@link parseSealingKeys} reads them, one per line, the sealing key first. */
export function formatSealingKeys(keys: readonly SealingKey[]): string {
  return checkSealingKeys(keys, 'formatSealingKeys')
    .map((key) => `${key.id}:${key.bytes.toString('base64')}`)
    .join('\n');
}
