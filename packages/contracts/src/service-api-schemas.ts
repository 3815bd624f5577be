import * as z from 'zod/mini';
import {
  API_ERROR_CODES,
  SCORE_MAX,
  SCORE_MIN,
  SESSION_ID_MAX_LENGTH,
  SESSION_STATES,
  VALIDATION_METHODS,
  VERIFICATION_STATUSES,
} from './constants.js';
import { DURATION_MESSAGE, DURATION_PATTERN, HTTP_URL_MESSAGE, HTTP_URL_PATTERN } from './patterns.js';

/*
 * The service API's response bodies built with `zod/mini`, for `@kyc/client` and anything else
 * bundled for browsers or edge runtimes: the classic schemas of `wire-schemas.ts` pull in about
 * 34 KB (gzip) of zod, these about 7 KB. They accept and reject exactly what `sessionDetailsSchema`
 * and `apiErrorBodySchema` do, with the same issue paths and codes, and infer the same types
 * (`service-api-schemas.test.ts` holds them equal). Without a zod locale loaded, issue messages
 * read "Invalid input": pass an error map to the parse (`@kyc/client` has a small one), or
 * `{ error: en().localeError }` with `import { en } from 'zod/locales'` (+1 KB gzip; reaching it
 * through the `z.locales` namespace bundles every locale).
 */

const scoreMiniSchema = z.number().check(z.gte(SCORE_MIN), z.lte(SCORE_MAX));
const isoTimestampMiniSchema = z.iso.datetime({ offset: true });

/**
 * A session id, as `sessionIdSchema`: a non-empty string of at most `SESSION_ID_MAX_LENGTH` characters.
 *
 * @example
 * sessionIdMiniSchema.safeParse('sess_1').success // true
 */
export const sessionIdMiniSchema = z.string().check(z.minLength(1), z.maxLength(SESSION_ID_MAX_LENGTH));

/**
 * The session details of `GET {base}/session/<id>` and `POST {base}/session/finish`, as
 * `sessionDetailsSchema`; unknown properties pass through.
 *
 * @example
 * sessionDetailsMiniSchema.safeParse(sampleSessionDetails).success // true
 */
export const sessionDetailsMiniSchema = z.looseObject({
  id: sessionIdMiniSchema,
  shortKey: z.string().check(z.minLength(1)),
  state: z.enum(SESSION_STATES),
  startedAt: isoTimestampMiniSchema,
  endedAt: z.optional(isoTimestampMiniSchema),
  duration: z.optional(z.string().check(z.regex(DURATION_PATTERN, DURATION_MESSAGE))),
  detailsURL: z.string().check(z.regex(HTTP_URL_PATTERN, HTTP_URL_MESSAGE)),
  scores: z.optional(
    z.looseObject({
      document: scoreMiniSchema,
      liveness: scoreMiniSchema,
      oneToOne: scoreMiniSchema,
      total: scoreMiniSchema,
    }),
  ),
  validation: z.optional(z.enum(VALIDATION_METHODS)),
  status: z.optional(z.enum(VERIFICATION_STATUSES)),
});

/**
 * The service API's error body `{"error": {"code", "message"}}`, as `apiErrorBodySchema`.
 *
 * @example
 * apiErrorBodyMiniSchema.safeParse({ error: { code: 'SESSION_NOT_FOUND', message: 'none' } }).success // true
 */
export const apiErrorBodyMiniSchema = z.looseObject({
  error: z.looseObject({
    code: z.union([z.enum(API_ERROR_CODES), z.string().check(z.minLength(1))]),
    message: z.string(),
  }),
});
