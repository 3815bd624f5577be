import { DeliveryEngineError } from '../delivery-engine-error.js';
import { isSealed, SEALED_PREFIX, type SecretSealer } from '../sealing/secret-sealer.js';
import type { DeliveryClaim, NewDelivery, StoredCredentials } from './store.js';

/**
 * The secrets of a delivery row, sealed. Both SQL stores keep an event's Auth Key and signing
 * secret only sealed (`sealed_auth_key`, `sealed_signing_secret`), under a key the operator holds.
 * Each sealed value is bound to its column, its delivery id and its endpoint's origin: copied
 * into another row, or left in a row whose URL was pointed at another host, it does not open,
 * so someone who can write the table but lacks the key cannot make the engine send a key elsewhere.
 */

/** Where a value is stored: the row it belongs to and the endpoint it is sent to. */
interface Place {
  readonly id: string;
  readonly origin: string;
}
const authKeyContext = (row: Place) => `deliveries.auth_key:${row.id}:${row.origin}`;
const signingSecretContext = (row: Place) => `deliveries.signing_secret:${row.id}:${row.origin}`;

/** The registry row that says rows written before schema version 6 may still hold secrets in clear. */
export const CLEAR_MARK = '';

/** SQL, both dialects: a stored value that is not sealed (written before schema version 6). */
export function clearCondition(column: string): string {
  return `(${column} IS NOT NULL AND substr(${column}, 1, ${SEALED_PREFIX.length}) <> '${SEALED_PREFIX}')`;
}

/** SQL, both dialects: a stored value sealed with another key than `prefixParameter` names. */
export function otherKeyCondition(column: string, prefixParameter: string): string {
  return `(${column} IS NOT NULL AND substr(${column}, 1, length(${prefixParameter})) <> ${prefixParameter})`;
}

/** Refuses to store a secret without a key: it would sit in clear in every backup. */
export function requireSealer(sealer: SecretSealer | undefined, where: string, fix: string): SecretSealer {
  if (sealer !== undefined) return sealer;
  throw new DeliveryEngineError(
    'sealing_key_missing',
    `${where}: this event carries an Auth Key or a signing secret and the store has no sealing key, so it would be stored in clear; ${fix}`,
  );
}

/** The sealed values of a new delivery's secrets, in the order of INSERT_COLUMNS (`null` when absent). */
export function sealedValues(
  sealer: () => SecretSealer,
  delivery: NewDelivery,
): { authKey: string | null; signingSecret: string | null } {
  if (delivery.authKey === undefined && delivery.signingSecret === undefined) {
    return { authKey: null, signingSecret: null };
  }
  const seal = sealer();
  return {
    authKey: delivery.authKey === undefined ? null : seal.seal(delivery.authKey, authKeyContext(delivery)),
    signingSecret:
      delivery.signingSecret === undefined ? null : seal.seal(delivery.signingSecret, signingSecretContext(delivery)),
  };
}

/** What a delivery enqueued without secrets has: shared, so such an attempt allocates nothing here. */
const NONE: StoredCredentials = Object.freeze({ authKey: undefined, signingSecret: undefined });

/** The clear credentials of a claimed delivery; throws `sealing_key_*` when a value cannot be opened. */
export function openedCredentials(sealer: SecretSealer | undefined, claim: DeliveryClaim): StoredCredentials {
  if (claim.authKey === undefined && claim.signingSecret === undefined) return NONE;
  const open = (value: string | undefined, context: string) => {
    if (value === undefined) return undefined;
    if (sealer === undefined) {
      throw new DeliveryEngineError(
        'sealing_key_missing',
        `a stored secret at ${context} is sealed${isSealed(value) ? '' : ' (or in clear)'} and this store has no sealing key`,
      );
    }
    return sealer.open(value, context);
  };
  return {
    authKey: open(claim.authKey, authKeyContext(claim)),
    signingSecret: open(claim.signingSecret, signingSecretContext(claim)),
  };
}

/** A stored row's values sealed again with the current key (from clear, or from an older key). */
export function resealed(
  sealer: SecretSealer,
  row: Place & { readonly authKey: string | null; readonly signingSecret: string | null },
): { authKey: string | null; signingSecret: string | null } {
  const again = (value: string | null, context: string) => {
    if (value === null) return null;
    const secret = isSealed(value) ? sealer.open(value, context) : value;
    return sealer.seal(secret, context);
  };
  return {
    authKey: again(row.authKey, authKeyContext(row)),
    signingSecret: again(row.signingSecret, signingSecretContext(row)),
  };
}

const CHECK_TEXT = 'kyc-delivery-engine sealing key check';
const checkContext = (id: string) => `delivery_sealing_keys:${id}`;

/** What the registry keeps for a key: a known text sealed with it, which only that key opens. */
export function keyCheckValue(sealer: SecretSealer): string {
  return sealer.seal(CHECK_TEXT, checkContext(sealer.sealingKeyId));
}

/** One row of the key registry. */
export interface RegisteredKey {
  readonly keyId: string;
  readonly checkValue: string;
}

/**
 * Checks the keys given against the ids the store has sealed with: a missing id or a key that
 * does not open its check value refuses the store, naming the id. Returns whether the sealing
 * key still has to be registered and whether rows written before sealing may hold clear values.
 */
export function checkRegistry(
  registered: readonly RegisteredKey[],
  sealer: SecretSealer | undefined,
  where: string,
  fix: string,
): { registerSealingKey: boolean; clearMayRemain: boolean } {
  for (const { keyId, checkValue } of registered) {
    if (keyId === CLEAR_MARK) continue;
    if (sealer === undefined || !sealer.keyIds.includes(keyId)) {
      throw new DeliveryEngineError(
        'sealing_key_missing',
        `${where}: the store holds secrets sealed with key id "${keyId}", which was not given; ${fix}`,
      );
    }
    let opened: string;
    try {
      opened = sealer.open(checkValue, checkContext(keyId));
    } catch (error) {
      throw new DeliveryEngineError(
        'sealing_key_wrong',
        `${where}: the key given as id "${keyId}" is not the key that sealed this store's secrets under that id; give the right key for "${keyId}"`,
        { cause: error },
      );
    }
    if (opened !== CHECK_TEXT)
      throw new DeliveryEngineError('sealing_key_wrong', `${where}: key id "${keyId}" check failed`);
  }
  return {
    registerSealingKey: sealer !== undefined && !registered.some((key) => key.keyId === sealer.sealingKeyId),
    clearMayRemain: registered.some((key) => key.keyId === CLEAR_MARK),
  };
}
