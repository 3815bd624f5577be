import { WEBHOOK_SUCCESS_STATUS } from '@kyc/contracts';
import type { AttemptOutcome } from './types.js';

/**
 * The outcome class of an HTTP status. Only exactly WEBHOOK_SUCCESS_STATUS (200) is a delivery:
 * the protocol gives no meaning to other 2xx answers, so they are failures with their own class.
 *
 * @example
 * ```ts
 * outcomeOfStatus(204); // 'unexpected_2xx'
 * ```
 */
export function outcomeOfStatus(status: number): AttemptOutcome {
  if (status === WEBHOOK_SUCCESS_STATUS) return 'delivered';
  if (status >= 200 && status < 300) return 'unexpected_2xx';
  if (status >= 300 && status < 400) return 'redirect';
  if (status >= 400 && status < 500) return 'client_error';
  return 'server_error';
}
