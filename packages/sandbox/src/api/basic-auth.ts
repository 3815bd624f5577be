import { createHash, randomBytes } from 'node:crypto';
import { HEADERS } from '@kyc/contracts';
import type { MiddlewareHandler } from 'hono';
import { ERROR_CODE } from '../domain/enum-values.js';
import type { SandboxService } from '../sandbox-service.js';
import { CLI_TOKEN_PATTERN } from '../store/cli-tokens.js';
import { decoyHash, verifyPassword } from '../store/password.js';
import type { CompanyRecord, UserRecord } from '../store/sandbox-store.js';
import { apiError } from './api-error.js';
import type { LoginThrottle } from './login-throttle.js';

/** What an authenticated request carries in Hono's context. */
export interface AuthVariables {
  user: UserRecord;
  company: CompanyRecord;
  /** The `kyc-sandbox login` token the request came with, when it did not send a password. */
  cliToken: string | undefined;
}

/** The CLI token of an `Authorization: Bearer kycs_…` header, if that is what it holds. */
export function parseCliToken(header: string | undefined): string | undefined {
  const match = /^Bearer (\S+)$/.exec(header?.trim() ?? '');
  return match?.[1] !== undefined && CLI_TOKEN_PATTERN.test(match[1]) ? match[1] : undefined;
}

const CACHE_TTL_MS = 60 * 1000;
const CACHE_MAX = 1000;

/** Decodes `Authorization: Basic …`; `undefined` for anything else. */
export function parseBasic(header: string | undefined): { username: string; password: string } | undefined {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header?.trim() ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Checks a username and password: an unknown user costs the same scrypt work as a wrong
 * password, and both get the same answer, so responses do not reveal which users exist.
 */
export async function authenticate(
  service: SandboxService,
  username: string,
  password: string,
): Promise<UserRecord | undefined> {
  const user = service.store.findUser(username);
  const ok = await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
  return ok ? user : undefined;
}

/**
 * HTTP Basic on every API request. scrypt is deliberately slow, so a successful check is
 * remembered for a minute under a keyed hash of the credentials (never the password itself).
 */
export function basicAuth(
  service: SandboxService,
  throttle: LoginThrottle,
  options: { acceptCliTokens?: boolean } = {},
): MiddlewareHandler<{ Variables: AuthVariables }> {
  const pepper = randomBytes(32);
  const cache = new Map<string, { userId: number; expires: number }>();
  return async (c, next) => {
    const header = c.req.header(HEADERS.authorization);
    const cliToken = options.acceptCliTokens ? parseCliToken(header) : undefined;
    if (cliToken !== undefined) {
      // A token is 256 random bits: nothing to throttle, and no scrypt to spare.
      const userId = service.store.cliTokens.userOf(cliToken);
      const user = userId === undefined ? undefined : service.store.getUser(userId);
      const company = user && service.store.getCompany(user.companyId);
      if (!user || !company) {
        return apiError(
          c,
          401,
          ERROR_CODE.UNAUTHORIZED,
          'This kyc-sandbox login is unknown or was revoked; run kyc-sandbox login again.',
        );
      }
      c.set('user', user);
      c.set('company', company);
      c.set('cliToken', cliToken);
      await next();
      return;
    }
    const credentials = parseBasic(header);
    const unauthorized = () => {
      c.header(HEADERS.wwwAuthenticate, 'Basic realm="KYC sandbox", charset="UTF-8"');
      return apiError(c, 401, ERROR_CODE.UNAUTHORIZED, 'Send HTTP Basic credentials of a user issued by the operator.');
    };
    if (!credentials) return unauthorized();
    const cacheKey = createHash('sha256')
      .update(pepper)
      .update(credentials.username)
      .update('\0')
      .update(credentials.password)
      .digest('hex');
    const now = Date.now();
    const hit = cache.get(cacheKey);
    let user = hit && hit.expires > now ? service.store.getUser(hit.userId) : undefined;
    if (!user) {
      const wait = throttle.retryAfterSeconds(credentials.username);
      if (wait !== undefined) {
        c.header(HEADERS.retryAfter, String(wait));
        return apiError(c, 429, ERROR_CODE.RATE_LIMITED, `Too many failed logins; retry in ${wait} s.`);
      }
      user = await authenticate(service, credentials.username, credentials.password);
      if (!user) {
        throttle.fail(credentials.username);
        return unauthorized();
      }
      throttle.succeed(credentials.username);
      if (cache.size >= CACHE_MAX) cache.clear();
      cache.set(cacheKey, { userId: user.id, expires: now + CACHE_TTL_MS });
    }
    const company = service.store.getCompany(user.companyId);
    if (!company) return unauthorized();
    c.set('user', user);
    c.set('company', company);
    c.set('cliToken', undefined);
    await next();
  };
}
