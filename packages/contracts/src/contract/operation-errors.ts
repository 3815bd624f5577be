import type { ApiErrorCode } from '../constants.js';

/** The error answers each service API operation can give, by code (the status follows from the code). */
export const OPERATION_ERRORS = Object.freeze({
  finishSession: [
    'INVALID_REQUEST',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'SESSION_NOT_FOUND',
    'PAYLOAD_TOO_LARGE',
    'UNPROCESSABLE',
    'RATE_LIMITED',
    'INTERNAL',
    'UNAVAILABLE',
  ],
  getSession: ['UNAUTHORIZED', 'FORBIDDEN', 'SESSION_NOT_FOUND', 'RATE_LIMITED', 'INTERNAL', 'UNAVAILABLE'],
} as const satisfies Record<string, readonly ApiErrorCode[]>);
