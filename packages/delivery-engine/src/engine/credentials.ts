import { DeliveryEngineError } from '../delivery-engine-error.js';
import type { DeliveryClaim, DeliveryStore } from '../store/store.js';
import { AUTH_KEY_CHARS, MAX_SIGNING_SECRETS } from './prepare-event.js';
import type { AttemptTarget } from './select-transport.js';

/** What a `credentials` hook answers for one attempt. */
export interface DeliveryCredentials {
  /** Sent as `Authorization: Bearer <authKey>`; absent: no `Authorization` header. */
  readonly authKey?: string | undefined;
  /**
   * The Standard Webhooks secrets that sign this attempt (`whsec_…`; several during a rotation's
   * overlap, one signature each, at most 8). Absent: the engine's `signing.secret`, if any; an
   * empty list: unsigned.
   */
  readonly signingSecrets?: string | readonly string[] | undefined;
}

/**
 * Gives an attempt its Auth Key and signing secrets at the moment it is sent, from wherever the
 * service keeps them (its database, a vault): the engine's store then holds no secret, and a
 * retry carries the key configured now, as the specification says ("the key is the value
 * configured by the customer"). Called once per attempt, right before it is sent, with the
 * delivery's id, `companyId`, URL and attempt number; may return a promise. `undefined` means
 * "not mine": the attempt uses what the event was enqueued with (sealed in the store) and the
 * engine's `signing.secret`. A hook that throws, rejects, answers no valid credentials or does
 * not answer within the attempt's deadline fails the attempt as `credentials_error`: nothing is
 * sent, the failure is logged (never a secret) and the attempt is retried on the schedule.
 */
export type CredentialsHook = (
  target: AttemptTarget,
) => DeliveryCredentials | undefined | Promise<DeliveryCredentials | undefined>;

/** The secrets one attempt is sent with. */
export interface AttemptSecrets {
  readonly authKey: string | undefined;
  /** One secret or several, space-separated (the form the signer takes). */
  readonly signingSecret: string | undefined;
}

function refused(message: string, cause?: unknown): DeliveryEngineError {
  return new DeliveryEngineError('credentials_error', message, cause === undefined ? undefined : { cause });
}

/** Checks a hook's answer; the message says what was wrong, never what the value was. */
export function checkAnswer(answer: unknown, fallbackSecret: string | undefined): AttemptSecrets {
  if (answer === null || typeof answer !== 'object') {
    throw refused('the credentials hook answered neither an object { authKey?, signingSecrets? } nor undefined');
  }
  const { authKey, signingSecrets } = answer as Record<string, unknown>;
  if (authKey !== undefined && (typeof authKey !== 'string' || !AUTH_KEY_CHARS.test(authKey))) {
    throw refused('the credentials hook answered an authKey that is not a string of visible ASCII without spaces');
  }
  let signingSecret: string | undefined;
  if (signingSecrets === undefined) signingSecret = fallbackSecret;
  else {
    const list = typeof signingSecrets === 'string' ? [signingSecrets] : signingSecrets;
    if (!Array.isArray(list) || list.length > MAX_SIGNING_SECRETS) {
      throw refused(
        `the credentials hook answered signingSecrets that are not a secret or a list of at most ${MAX_SIGNING_SECRETS}`,
      );
    }
    // Each secret's format is checked where it is parsed (and cached) for signing.
    if (list.some((secret) => typeof secret !== 'string' || secret === '' || /\s/.test(secret))) {
      throw refused('the credentials hook answered a signing secret that is not a whsec_… string');
    }
    signingSecret = list.length === 0 ? undefined : list.join(' ');
  }
  return { authKey: authKey as string | undefined, signingSecret };
}

/** What {@link attemptSecrets} needs of the engine (the attempt context has it all). */
export interface CredentialsContext {
  readonly credentials: CredentialsHook | undefined;
  readonly store: Pick<DeliveryStore<unknown>, 'openCredentials'>;
  /** The engine's `signing.secret`, for an attempt whose event has none of its own. */
  readonly signingSecret: string | undefined;
  readonly options: { readonly deadlineMs: number };
  readonly abort: AbortSignal;
}

/** The secrets stored with the event (opened by the store once, for this attempt). */
function storedSecrets(ctx: CredentialsContext, claim: DeliveryClaim): AttemptSecrets {
  const stored = ctx.store.openCredentials?.(claim) ?? claim;
  if (stored.signingSecret !== undefined || ctx.signingSecret === undefined) return stored;
  return { authKey: stored.authKey, signingSecret: ctx.signingSecret };
}

/** Waits for an async hook, within the attempt's deadline and until `stop()` gives up. */
function settle<T>(promise: Promise<T>, ctx: CredentialsContext): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      ctx.abort.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      done();
      reject(ctx.abort.reason);
    };
    const timer = setTimeout(() => {
      done();
      reject(refused(`the credentials hook did not answer within ${ctx.options.deadlineMs} ms`));
    }, ctx.options.deadlineMs);
    ctx.abort.addEventListener('abort', aborted, { once: true });
    promise.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}

/** The reason of a hook's failure, without its message (it may quote what a vault returned). */
export function hookFailure(error: unknown): DeliveryEngineError {
  if (error instanceof DeliveryEngineError) return error;
  const name = error instanceof Error ? error.name : typeof error;
  const code = (error as { code?: unknown } | null)?.code;
  return refused(
    `the credentials hook threw ${name}${typeof code === 'string' || typeof code === 'number' ? ` (code ${code})` : ''}`,
    error,
  );
}

/**
 * The Auth Key and signing secrets of one attempt: the hook's answer, else what the store keeps
 * for the event. Synchronous (no promise, no extra turn of the event loop) unless the hook
 * returns a promise. Throws (or rejects with) a `DeliveryEngineError`: `credentials_error` for
 * the hook, `sealing_key_*` for a stored value this process cannot open.
 */
export function attemptSecrets(
  ctx: CredentialsContext,
  claim: DeliveryClaim,
  attempt: number,
): AttemptSecrets | Promise<AttemptSecrets> {
  if (ctx.credentials === undefined) return storedSecrets(ctx, claim);
  let answer: ReturnType<CredentialsHook>;
  try {
    answer = ctx.credentials({ deliveryId: claim.id, companyId: claim.companyId, url: claim.url, attempt });
  } catch (error) {
    throw hookFailure(error);
  }
  const use = (value: unknown): AttemptSecrets =>
    value === undefined ? storedSecrets(ctx, claim) : checkAnswer(value, ctx.signingSecret);
  if (typeof (answer as PromiseLike<unknown> | undefined)?.then !== 'function') return use(answer);
  return settle(Promise.resolve(answer), ctx).then(use, (error: unknown) => {
    if (ctx.abort.aborted) throw error;
    throw hookFailure(error);
  });
}
