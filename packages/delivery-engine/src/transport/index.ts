// The transport's public surface, re-exported by the package entry.
export { classifyError } from './classify-error.js';
export { createTransport, type Transport } from './create-transport.js';
export { outcomeOfStatus } from './outcome.js';
export { sendAttempt } from './send-attempt.js';
export type {
  AttemptOutcome,
  AttemptRequest,
  AttemptResult,
  ResolvedAddress,
  Resolver,
  TransportOptions,
} from './types.js';
