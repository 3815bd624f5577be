import type { ClaimRequest, DeliveryClaim, DeliveryStore } from '@kyc/delivery-engine';
import type { SigningSecretRecord, SigningSecretUse } from '../store/signing-secrets.js';

/** What the wrapper needs of the sandbox: a company's secrets now, and where to note which signed. */
export interface SigningLookup {
  /** The secrets that sign the company's deliveries at this moment, newest first. */
  readonly secretsOf: (companyId: number) => readonly SigningSecretRecord[];
  /** Records the secrets (labels, not values) that sign one attempt: the attempt inspector's "signed with". */
  readonly signed: (eventId: string, attempt: number, secrets: readonly SigningSecretUse[]) => void;
}

/**
 * The engine's store, with each claim's signing secrets replaced by the company's secrets at
 * the moment it is claimed, that is right before the attempt is sent. The sandbox enqueues no
 * secret with a delivery, so:
 *
 * - a retry, redelivery or replay is signed with the secrets of the day it is sent, not of the
 *   day it was enqueued (as Svix does): after a rotation's overlap it carries only the new
 *   signature, so a receiver that dropped the old secret still verifies it, and a secret set
 *   after a delivery failed signs its redelivery;
 * - removing a secret stops signing at once, and the engine's database never holds a secret.
 *
 * Every other method is the store's own (bound to it, so private fields keep working).
 */
export function signingDeliveryStore<S extends DeliveryStore<unknown>>(store: S, lookup: SigningLookup): S {
  const sign = (claim: DeliveryClaim): DeliveryClaim => {
    const companyId = Number(claim.companyId);
    if (claim.companyId === undefined || !Number.isSafeInteger(companyId)) return claim;
    const secrets = lookup.secretsOf(companyId);
    if (secrets.length === 0) return { ...claim, signingSecret: undefined };
    lookup.signed(claim.id, claim.attempts + 1, secrets);
    return { ...claim, signingSecret: secrets.map((s) => s.secret).join(' ') };
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'claim') {
        return async (request: ClaimRequest) => (await target.claim(request)).map(sign);
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
