import type { LoginThrottle } from '../api/login-throttle.js';
import { generateSigningSecret } from '../domain/signing-secret.js';
import { verifyPassword } from '../store/password.js';
import type { SandboxStore, UserRecord } from '../store/sandbox-store.js';
import type { SigningSecretRecord } from '../store/signing-secrets.js';
import {
  type RevealedSigningSecret,
  revealedSecret,
  type SigningSecretStatus,
  secretView,
} from './signing-secret-views.js';

/** How long the old secret keeps signing after a rotation unless the company picks otherwise (Svix and Stripe: 24 h). */
export const DEFAULT_OVERLAP_MS = 24 * 3_600_000;
/** The longest overlap a company may pick: a week. */
export const MAX_OVERLAP_MS = 7 * 24 * 3_600_000;

/** Why a signing-secret action was refused; messages never hold a secret. */
export class SigningSecretError extends Error {
  override readonly name = 'SigningSecretError';
  constructor(
    readonly code: 'exists' | 'not_set' | 'wrong_password' | 'throttled' | 'invalid_overlap',
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/**
 * A company's signing secrets as the portal, the API and the CLI handle them. Only `create`,
 * `rotate` and `reveal` return a secret's value; `reveal` asks for the user's password again,
 * as Stripe's "reveal" does, with the login's throttle on wrong ones. Times come from `now`, the
 * sandbox's injectable wall clock, so a test passes a 24-hour overlap without waiting.
 */
export class SigningSecretService {
  constructor(
    private readonly store: SandboxStore,
    readonly now: () => number,
    private readonly throttle: LoginThrottle,
  ) {}

  /** The secrets that sign the company's deliveries now, newest first. */
  active(companyId: number): SigningSecretRecord[] {
    return this.store.signingSecrets.active(companyId, this.now());
  }

  status(companyId: number): SigningSecretStatus {
    const secrets = this.active(companyId).map(secretView);
    return { signing: secrets.length > 0, secrets };
  }

  /** The company's first secret; refused when one is set (rotate it instead, with an overlap). */
  create(companyId: number): RevealedSigningSecret {
    if (this.active(companyId).length > 0) {
      throw new SigningSecretError('exists', 'A signing secret is already set: rotate it to get a new one.');
    }
    const now = this.now();
    return revealedSecret(this.store.signingSecrets.add(companyId, generateSigningSecret(), now, now));
  }

  /**
   * A new current secret; the old one keeps signing beside it for `overlapMs` (0: stops now).
   * Returns the new secret and the old one's view (no value).
   */
  rotate(
    companyId: number,
    overlapMs = DEFAULT_OVERLAP_MS,
  ): { secret: RevealedSigningSecret; status: SigningSecretStatus } {
    if (!Number.isInteger(overlapMs) || overlapMs < 0 || overlapMs > MAX_OVERLAP_MS) {
      throw new SigningSecretError(
        'invalid_overlap',
        `The overlap is a whole number of milliseconds from 0 (end now) to ${MAX_OVERLAP_MS} (7 days).`,
      );
    }
    if (this.active(companyId).length === 0) {
      throw new SigningSecretError('not_set', 'No signing secret is set: create one first.');
    }
    const now = this.now();
    const added = this.store.signingSecrets.add(companyId, generateSigningSecret(), now, now + overlapMs);
    return { secret: revealedSecret(added), status: this.status(companyId) };
  }

  /** Ends a rotation's overlap now: the old secret stops signing. */
  endOverlap(companyId: number): SigningSecretStatus {
    this.store.signingSecrets.endOverlap(companyId);
    return this.status(companyId);
  }

  /** Stops signing: every secret of the company is deleted. */
  remove(companyId: number): SigningSecretStatus {
    this.store.signingSecrets.removeAll(companyId);
    return this.status(companyId);
  }

  /** The active secrets with their values, once the user's password is given again. */
  async reveal(user: UserRecord, password: string): Promise<RevealedSigningSecret[]> {
    const wait = this.throttle.retryAfterSeconds(user.username);
    if (wait !== undefined) {
      throw new SigningSecretError('throttled', `Too many wrong passwords; retry in ${wait} s.`, wait);
    }
    if (!(await verifyPassword(password, user.passwordHash))) {
      this.throttle.fail(user.username);
      throw new SigningSecretError('wrong_password', 'That is not your password: enter it again to reveal the secret.');
    }
    this.throttle.succeed(user.username);
    return this.active(user.companyId).map(revealedSecret);
  }
}
