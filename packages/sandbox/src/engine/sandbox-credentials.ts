import type { CredentialsHook } from '@kyc/delivery-engine';
import { authKeyHint } from '../domain/masked-auth-key.js';
import type { SigningSecretService } from '../signing/signing-secret-service.js';
import type { SandboxStore } from '../store/sandbox-store.js';

/**
 * The engine's `credentials` hook for the sandbox: each attempt gets its company's Auth Key and
 * signing secrets as configured at the moment it is sent, read (and opened) from `sandbox.db`.
 * The sandbox enqueues no secret, so the engine's store holds none, and:
 *
 * - a retry, redelivery or replay carries the key saved now ("the key is the value configured
 *   by the customer", spec §5), and is signed with the secrets of the day it is sent (as Svix
 *   does): after a rotation's overlap only the new signature, so a receiver that dropped the old
 *   secret still verifies it; a secret set after a delivery failed signs its redelivery;
 * - removing a secret stops signing at once, removing the key stops sending it.
 *
 * It also notes which secrets signed the attempt (the inspector's "signed with") and the last
 * four characters of the key it carried (the inspector's `Bearer ••••…`).
 */
export function sandboxCredentials(store: SandboxStore, signing: SigningSecretService): CredentialsHook {
  return ({ deliveryId, companyId, attempt }) => {
    const id = Number(companyId);
    if (companyId === undefined || !Number.isSafeInteger(id)) return undefined;
    const company = store.getCompany(id);
    if (company === undefined) return undefined;
    const secrets = signing.active(id);
    if (secrets.length > 0) store.signingSecrets.recordUse(deliveryId, attempt, secrets);
    store.portal.noteAuthKeyHint(deliveryId, authKeyHint(company.authKey));
    return { authKey: company.authKey, signingSecrets: secrets.map((secret) => secret.secret) };
  };
}
