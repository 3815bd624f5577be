import type { WebhookIssue } from '@kyc/contracts/webhook-reader';

/**
 * Stable codes of {@link WebhookError}. Match on these, never on the message.
 *
 * - `parsed_body`: the body was already parsed into an object; the receiver needs the raw bytes.
 * - `invalid_body_type`: the body is not a string, `Uint8Array` or `ArrayBuffer`.
 * - `invalid_encoding`: the bytes are not valid UTF-8.
 * - `invalid_json`: the text is not JSON.
 * - `not_an_object`, `missing_session_id`, `conflicting_session_id`: the JSON cannot be a webhook.
 * - `strict_violation`: `strict: true` and the body has issues.
 * - `body_too_large`: the body exceeds the configured limit.
 * - `body_already_consumed`: a framework read or parsed the request stream before the receiver.
 * - `body_unreadable`: the request stream failed (client disconnected).
 * - `invalid_option`: a receiver or store option is wrong (bad key, bad table name, …).
 * - `unsupported_event`: an adapter got something that is not an HTTP request of its platform (a
 *   Lambda event that is not from API Gateway or a function URL).
 * - `inbox_table_missing`: the transactional inbox's table does not exist (run `migrateInbox`).
 */
export type WebhookErrorCode =
  | 'parsed_body'
  | 'invalid_body_type'
  | 'invalid_encoding'
  | 'invalid_json'
  | 'not_an_object'
  | 'missing_session_id'
  | 'conflicting_session_id'
  | 'strict_violation'
  | 'body_too_large'
  | 'body_already_consumed'
  | 'body_unreadable'
  | 'invalid_option'
  | 'unsupported_event'
  | 'inbox_table_missing';

/** What the receiver answers for each code: 4xx for the sender's input, 500 for our own set-up. */
const STATUS_BY_CODE: Readonly<Record<WebhookErrorCode, number>> = {
  parsed_body: 500,
  invalid_body_type: 400,
  invalid_encoding: 400,
  invalid_json: 400,
  not_an_object: 400,
  missing_session_id: 400,
  conflicting_session_id: 400,
  strict_violation: 400,
  body_too_large: 413,
  body_already_consumed: 500,
  body_unreadable: 400,
  invalid_option: 500,
  unsupported_event: 500,
  inbox_table_missing: 500,
};

/** Options of {@link WebhookError}. */
export interface WebhookErrorOptions {
  readonly issues?: readonly WebhookIssue[];
  readonly cause?: unknown;
}

/**
 * The one error class of this package. `code` is stable, `issues` lists what was wrong and
 * where, `status` is the HTTP status the receiver answers with. Messages never contain a key,
 * a secret or a body.
 *
 * @example
 * try {
 *   parseWebhook(text);
 * } catch (error) {
 *   if (error instanceof WebhookError && error.code === 'invalid_json') reply(400);
 * }
 */
export class WebhookError extends Error {
  override readonly name = 'WebhookError';
  readonly code: WebhookErrorCode;
  readonly issues: readonly WebhookIssue[];
  /** The HTTP status a receiver answers for this error (also read by Express's error handler). */
  readonly status: number;

  constructor(code: WebhookErrorCode, message: string, options: WebhookErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.issues = options.issues ?? [];
    this.status = STATUS_BY_CODE[code];
  }
}

/** True for a {@link WebhookError}, also across copies of this package. */
export function isWebhookError(value: unknown): value is WebhookError {
  return value instanceof WebhookError || (value instanceof Error && value.name === 'WebhookError' && 'code' in value);
}
