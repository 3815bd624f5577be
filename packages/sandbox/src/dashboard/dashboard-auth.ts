import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { SandboxService } from '../sandbox-service.js';
import type { CompanyRecord, UserRecord } from '../store/sandbox-store.js';

/** What a logged-in dashboard request carries in Hono's context. */
export interface DashboardVariables {
  user: UserRecord;
  company: CompanyRecord;
  csrfToken: string;
}

/** How long a dashboard login lasts. */
export const LOGIN_TTL_MS = 8 * 60 * 60 * 1000;

/** Cookie names; `__Host-` (Secure, path /, no domain) when served over HTTPS. */
export function cookieNames(secure: boolean) {
  return secure
    ? { login: '__Host-kyc_sandbox', loginCsrf: '__Host-kyc_sandbox_csrf' }
    : { login: 'kyc_sandbox', loginCsrf: 'kyc_sandbox_csrf' };
}

/** Constant-time comparison of two tokens of any length. */
export function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function setLoginCookie(c: Context, secure: boolean, token: string): void {
  setCookie(c, cookieNames(secure).login, token, {
    httpOnly: true,
    secure,
    sameSite: 'Strict',
    path: '/',
    maxAge: Math.floor(LOGIN_TTL_MS / 1000),
  });
}

export function clearLoginCookie(c: Context, secure: boolean): void {
  deleteCookie(c, cookieNames(secure).login, { path: '/', secure });
}

/** A fresh double-submit token for the login form (there is no login yet to bind it to). */
export function issueLoginCsrf(c: Context, secure: boolean): string {
  const token = randomBytes(24).toString('base64url');
  setCookie(c, cookieNames(secure).loginCsrf, token, { httpOnly: true, secure, sameSite: 'Strict', path: '/' });
  return token;
}

export function loginCsrfCookie(c: Context, secure: boolean): string | undefined {
  return getCookie(c, cookieNames(secure).loginCsrf);
}

/**
 * Requires a dashboard login; on POST also requires the login's CSRF token in the form's
 * `_csrf` field (synchronizer token), on top of the Origin check and `SameSite=Strict`.
 */
export function requireLogin(
  service: SandboxService,
  secure: boolean,
): MiddlewareHandler<{ Variables: DashboardVariables }> {
  return async (c, next) => {
    const token = getCookie(c, cookieNames(secure).login);
    const login = token ? service.store.logins.find(token, Date.now()) : undefined;
    const user = login && service.store.getUser(login.userId);
    const company = user && service.store.getCompany(user.companyId);
    if (!login || !user || !company) return c.redirect('/login', 303);
    if (c.req.method === 'POST') {
      const form = await c.req.parseBody();
      const sent = typeof form._csrf === 'string' ? form._csrf : '';
      if (!sameToken(sent, login.csrfToken))
        return c.text('Invalid or missing CSRF token. Reload the page and retry.', 403);
    }
    c.set('user', user);
    c.set('company', company);
    c.set('csrfToken', login.csrfToken);
    await next();
  };
}
