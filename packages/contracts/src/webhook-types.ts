import type { ValidationMethod, VerificationStatus } from './constants.js';
import type { ValidationCheck } from './validation-check.js';

/** A non-fatal finding about a webhook body: the field it concerns and what is wrong. */
export interface WebhookIssue {
  /** Path of the field in the normalised body, e.g. `['scores', 'total']`. */
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** The four scores of the v1 body (0–100). */
export interface WebhookScores {
  readonly document?: number;
  readonly liveness?: number;
  readonly oneToOne?: number;
  readonly total?: number;
}

/** The "User Data" group of the status-shaped body. */
export interface WebhookUserData {
  readonly name?: string;
  readonly documentNumber?: string;
  /** `YYYY-MM-DD`. */
  readonly dateOfBirth?: string;
  readonly nationality?: string;
}

/** The "Validation Results" group of the status-shaped body. */
export interface WebhookValidationResults {
  readonly documentAuthenticity?: ValidationCheck;
  readonly facialMatch?: ValidationCheck;
  readonly livenessDetection?: ValidationCheck;
}

/** The "Metadata" group of the status-shaped body. */
export interface WebhookMetadata {
  readonly ipAddress?: string;
  readonly geolocation?: Readonly<Record<string, unknown>> | string;
  readonly device?: Readonly<Record<string, unknown>> | string;
}

/** Fields of the v1 group (spec §2.1), typed when valid. */
export interface WebhookV1Fields {
  readonly shortKey?: string;
  readonly startedAt?: Date;
  /** `startedAt` exactly as sent. */
  readonly startedAtIso?: string;
  readonly endedAt?: Date;
  /** `endedAt` exactly as sent. */
  readonly endedAtIso?: string;
  /** The duration text exactly as sent, e.g. `"95s"`. */
  readonly duration?: string;
  readonly durationMs?: number;
  readonly detailsURL?: string;
  readonly scores?: WebhookScores;
  readonly validation?: ValidationMethod;
}

/** Fields of the status group (spec §2.2), typed when valid. */
export interface WebhookStatusFields {
  readonly event?: string;
  readonly timestamp?: Date;
  /** `timestamp` exactly as sent. */
  readonly timestampIso?: string;
  readonly status?: VerificationStatus;
  readonly confidenceScore?: number;
  readonly userData?: WebhookUserData;
  readonly validationResults?: WebhookValidationResults;
  readonly metadata?: WebhookMetadata;
}

/** Marks the fields of a group that a shape does not carry. */
export type AbsentFields<T> = { readonly [K in keyof T]?: undefined };

/** What every normalised webhook carries, whatever its shape. */
export interface NormalizedWebhookBase {
  readonly sessionId: string;
  /** Non-fatal findings: missing or malformed fields, duplicate spellings. */
  readonly issues: readonly WebhookIssue[];
  /** The parsed body as received, unknown properties included. */
  readonly raw: Readonly<Record<string, unknown>>;
}

/** Which groups a body carries. */
export type WebhookShape = 'v1' | 'status' | 'both';

/** A webhook body with only the v1 group. */
export type NormalizedV1Webhook = NormalizedWebhookBase & { readonly shape: 'v1' } & WebhookV1Fields &
  AbsentFields<WebhookStatusFields>;
/** A webhook body with only the status group. */
export type NormalizedStatusWebhook = NormalizedWebhookBase & { readonly shape: 'status' } & WebhookStatusFields &
  AbsentFields<WebhookV1Fields>;
/** A webhook body with both groups. */
export type NormalizedCombinedWebhook = NormalizedWebhookBase & { readonly shape: 'both' } & WebhookV1Fields &
  WebhookStatusFields;

/** A webhook body read tolerantly; narrow on `shape`. */
export type NormalizedWebhook = NormalizedV1Webhook | NormalizedStatusWebhook | NormalizedCombinedWebhook;

/** Why a body cannot be accepted at all. */
export type WebhookRejectionCode = 'not_an_object' | 'missing_session_id' | 'conflicting_session_id';

/** The outcome of {@link normalizeWebhookBody}. */
export type NormalizeWebhookResult =
  | { readonly ok: true; readonly webhook: NormalizedWebhook }
  | { readonly ok: false; readonly code: WebhookRejectionCode; readonly issues: readonly WebhookIssue[] };
