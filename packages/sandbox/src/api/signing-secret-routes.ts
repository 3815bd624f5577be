import { HEADERS } from '@kyc/contracts';
import type { Context } from 'hono';
import { Hono } from 'hono';
import * as z from 'zod';
import { ERROR_CODE } from '../domain/enum-values.js';
import { MAX_OVERLAP_MS, SigningSecretError, type SigningSecretService } from '../signing/signing-secret-service.js';
import { apiError } from './api-error.js';
import type { AuthVariables } from './basic-auth.js';
import { describeIssues, readJson } from './read-json.js';

/** Paths of the signing-secret API (HTTP Basic or a `kyc-sandbox login` token, like the rest of `/sandbox`). */
export const SIGNING_SECRET_API = Object.freeze({
  secret: '/sandbox/signing-secret',
  rotate: '/sandbox/signing-secret/rotate',
  endOverlap: '/sandbox/signing-secret/end-overlap',
  reveal: '/sandbox/signing-secret/reveal',
});

const rotateBodySchema = z.strictObject({
  // Whole seconds, 0 (the old secret stops now) to a week; default 24 hours.
  overlapSeconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_OVERLAP_MS / 1000)
    .optional(),
});
const revealBodySchema = z.strictObject({ password: z.string().min(1).max(1024) });

const STATUS_OF = { exists: 409, not_set: 409, wrong_password: 403, throttled: 429, invalid_overlap: 422 } as const;

function refused(c: Context, error: unknown): Response {
  if (!(error instanceof SigningSecretError)) throw error;
  if (error.retryAfterSeconds !== undefined) c.header(HEADERS.retryAfter, String(error.retryAfterSeconds));
  return apiError(c, STATUS_OF[error.code], error.code.toUpperCase(), error.message);
}

/**
 * The company's signing secret: read its state (labels and times, never a value), create,
 * rotate with an overlap, end the overlap, remove, and reveal after the password is given again.
 * Only create, rotate and reveal answer with a secret.
 */
export function signingSecretRoutes(signing: SigningSecretService): Hono<{ Variables: AuthVariables }> {
  const app = new Hono<{ Variables: AuthVariables }>();
  const companyOf = (c: { get(key: 'company'): AuthVariables['company'] }) => c.get('company').id;

  app.get(SIGNING_SECRET_API.secret, (c) => c.json(signing.status(companyOf(c))));

  app.post(SIGNING_SECRET_API.secret, (c) => {
    try {
      return c.json({ secret: signing.create(companyOf(c)), ...signing.status(companyOf(c)) }, 201);
    } catch (error) {
      return refused(c, error);
    }
  });

  app.post(SIGNING_SECRET_API.rotate, async (c) => {
    const body = await readJson(c);
    if (!body.ok) return apiError(c, 400, ERROR_CODE.INVALID_REQUEST, 'The body must be JSON.');
    const parsed = rotateBodySchema.safeParse(body.value ?? {});
    if (!parsed.success) return apiError(c, 422, ERROR_CODE.UNPROCESSABLE, describeIssues(parsed.error.issues));
    try {
      const overlap = parsed.data.overlapSeconds;
      const rotated = signing.rotate(companyOf(c), overlap === undefined ? undefined : overlap * 1000);
      return c.json({ secret: rotated.secret, ...rotated.status }, 200);
    } catch (error) {
      return refused(c, error);
    }
  });

  app.post(SIGNING_SECRET_API.endOverlap, (c) => c.json(signing.endOverlap(companyOf(c))));

  app.delete(SIGNING_SECRET_API.secret, (c) => c.json(signing.remove(companyOf(c))));

  app.post(SIGNING_SECRET_API.reveal, async (c) => {
    const body = await readJson(c);
    if (!body.ok) return apiError(c, 400, ERROR_CODE.INVALID_REQUEST, 'The body must be JSON.');
    const parsed = revealBodySchema.safeParse(body.value);
    // Not describeIssues: its text could quote what was typed in the password field.
    if (!parsed.success) return apiError(c, 422, ERROR_CODE.UNPROCESSABLE, 'Send {"password": "<your password>"}.');
    try {
      return c.json({ secrets: await signing.reveal(c.get('user'), parsed.data.password) });
    } catch (error) {
      return refused(c, error);
    }
  });

  return app;
}
