import type { Diagnosis } from '../check/diagnose-attempt.js';
import type { ForwardMark } from '../listen/forward-log.js';
import type { ListenerInfo } from '../listen/listener-session.js';
import type { AttemptHealth, HealthFailure } from './compute-health.js';
import type { DeliveryFilterView } from './delivery-query.js';
import type { EndpointPace } from './endpoint-pace.js';

/** Who is acting: the logged-in (or Basic-authenticated) user and their company. */
export interface Actor {
  readonly companyId: number;
  readonly userId: number;
  readonly username: string;
}

/** A row of the delivery log. */
export interface DeliveryListItem {
  readonly eventId: string;
  readonly sessionId: string;
  readonly shortKey: string;
  readonly test: boolean;
  /** `queued`, `not_sent`, `pending` (shown as Sending before its first attempt, then Retrying), `delivered` or `failed`. */
  readonly state: string;
  readonly attempts: number;
  readonly lastOutcome: string | null;
  readonly lastStatus: number | null;
  readonly createdAt: string;
  readonly nextAttemptAt: string | null;
  readonly note: string | null;
}

/** One page of the delivery log with the cursors of its neighbours. */
export interface DeliveryPage {
  readonly deliveries: readonly DeliveryListItem[];
  readonly filter: DeliveryFilterView;
  readonly pageSize: number;
  readonly nextCursor: string | null;
  readonly prevCursor: string | null;
}

/** One attempt in the inspector. */
export interface AttemptDetail {
  readonly attempt: number;
  readonly round: number;
  readonly at: string;
  readonly outcome: string;
  readonly status: number | null;
  readonly latencyMs: number;
  readonly dialedAddress: string | null;
  readonly responseSnippet: string | null;
  readonly error: string | null;
  readonly diagnosis: Diagnosis | null;
  /** Set when the attempt went through `kyc-sandbox listen` instead of the engine's own HTTPS connection. */
  readonly forwardedTo: ForwardMark | null;
  /**
   * Sends of this delivery before this attempt whose result was never recorded (the sender
   * stopped between sending and recording): each may have reached the endpoint.
   */
  readonly unrecordedSends: number;
  /**
   * The company's signing secrets that made this attempt's `webhook-signature`, by label and
   * creation time (never a value); `null` when the attempt was not signed.
   */
  readonly signedWith: readonly { readonly label: string; readonly createdAt: string }[] | null;
}

/** A company's connected `kyc-sandbox listen`: from where, to where, since when. */
export interface Forwarding {
  readonly listenerId: string;
  readonly username: string;
  /** The host name the CLI reported. */
  readonly host: string;
  /** The address the connection came from. */
  readonly address: string;
  /** The local URL the CLI forwards to, on its machine. */
  readonly forwardTo: string;
  readonly since: string;
}

export const forwardingView = (listener: ListenerInfo): Forwarding => ({
  listenerId: listener.listenerId,
  username: listener.username,
  host: listener.host,
  address: listener.address,
  forwardTo: listener.forwardTo,
  since: new Date(listener.since).toISOString(),
});

/** Everything the delivery page shows. The Auth Key appears only as `Bearer ••••` and its last four characters. */
export interface DeliveryDetail extends DeliveryListItem {
  readonly request: {
    readonly method: 'POST';
    readonly url: string | null;
    /** Made while the company had no URL saved, for its `kyc-sandbox listen`. */
    readonly toListener: boolean;
    readonly headers: readonly { readonly name: string; readonly value: string }[];
    /** The body pretty-printed (it is sent compact, byte for byte as stored). */
    readonly body: string;
    readonly bodyBytes: number;
  };
  readonly attemptLog: readonly AttemptDetail[];
  readonly redeliveries: readonly { readonly round: number; readonly requestedAt: string }[];
  readonly actions: readonly { readonly action: string; readonly username: string; readonly at: string }[];
  readonly canRedeliver: boolean;
}

/** The health page: attempts over 24 h, the retry queue, and the endpoint's configuration. */
export interface EndpointHealth extends AttemptHealth {
  readonly endpoint: { readonly url: string | null; readonly hasAuthKey: boolean };
  /** Whether the endpoint answers promptly, answers late, or hangs, right now. */
  readonly pace: EndpointPace;
  readonly lastError: HealthFailure | null;
  readonly lastFailures: readonly HealthFailure[];
  readonly retries: {
    /** Pending deliveries by the number of attempts they already had (`"0"`: waiting for the first). */
    readonly waiting: Readonly<Record<string, number>>;
    readonly pending: number;
    readonly nextAttemptAt: string | null;
    readonly schedule: string;
  };
  readonly circuit: { readonly state: 'none'; readonly message: string };
}

/** The result of a redeliver, replay or test-event click, the same for every repeat of that click. */
export type ActionResult =
  | { readonly action: 'redeliver'; readonly eventId: string; readonly outcome: 'queued' | 'in_progress' }
  | { readonly action: 'replay_failed'; readonly since: string; readonly queued: number; readonly skipped: number }
  | {
      readonly action: 'test_event';
      readonly eventId: string;
      readonly sessionId: string;
      readonly shape: string;
      readonly outcome: 'answered' | 'not_sent' | 'no_answer_yet';
      readonly attempt: AttemptDetail | null;
      readonly problem: string | null;
    };

/** Why an action could not run; the routes map each to a status. */
export class PortalActionError extends Error {
  override readonly name = 'PortalActionError';
  constructor(
    readonly code: 'not_found' | 'busy' | 'key_reused' | 'no_webhook_url',
    message: string,
  ) {
    super(message);
  }
}
