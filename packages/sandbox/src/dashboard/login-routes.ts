import { HEADERS } from '@kyc/contracts';
import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { html } from 'hono/html';
import { authenticate } from '../api/basic-auth.js';
import type { LoginThrottle } from '../api/login-throttle.js';
import type { SandboxService } from '../sandbox-service.js';
import {
  clearLoginCookie,
  cookieNames,
  issueLoginCsrf,
  LOGIN_TTL_MS,
  loginCsrfCookie,
  sameToken,
  setLoginCookie,
} from './dashboard-auth.js';
import { csrfField, layout } from './layout.js';

function loginPage(csrfToken: string, error?: string, username = '') {
  return layout(
    'Log in',
    html`<section><form method="post" action="/login">
${csrfField(csrfToken)}
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<label for="username">Username</label><input type="text" id="username" name="username" value="${username}" autocomplete="username" required>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<p><button type="submit">Log in</button></p>
</form><p class="muted">Users are issued by the operator: <code>kyc-sandbox user add &lt;name&gt;</code>.</p></section>`,
  );
}

/** Login and logout of the dashboard. */
export function loginRoutes(service: SandboxService, secure: boolean, throttle: LoginThrottle): Hono {
  const app = new Hono();

  app.get('/', (c) => c.redirect('/dashboard/sessions', 303));
  app.get('/login', (c) => c.html(loginPage(issueLoginCsrf(c, secure))));

  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const expected = loginCsrfCookie(c, secure);
    const sent = typeof form._csrf === 'string' ? form._csrf : '';
    if (!expected || !sameToken(sent, expected)) {
      return c.html(loginPage(issueLoginCsrf(c, secure), 'The form expired. Please log in again.'), 403);
    }
    const username = typeof form.username === 'string' ? form.username : '';
    const password = typeof form.password === 'string' ? form.password : '';
    const wait = throttle.retryAfterSeconds(username);
    if (wait !== undefined) {
      c.header(HEADERS.retryAfter, String(wait));
      const message = `Too many failed logins; try again in ${wait} s.`;
      return c.html(loginPage(issueLoginCsrf(c, secure), message, username), 429);
    }
    const user = username && password ? await authenticate(service, username, password) : undefined;
    if (user) throttle.succeed(username);
    else throttle.fail(username);
    if (!user) {
      return c.html(loginPage(issueLoginCsrf(c, secure), 'Wrong username or password.', username), 401);
    }
    const login = service.store.logins.create(user.id, Date.now(), LOGIN_TTL_MS);
    setLoginCookie(c, secure, login.token);
    return c.redirect('/dashboard/sessions', 303);
  });

  app.post('/logout', async (c) => {
    const token = getCookie(c, cookieNames(secure).login);
    const login = token ? service.store.logins.find(token, Date.now()) : undefined;
    const form = await c.req.parseBody();
    if (token && login && typeof form._csrf === 'string' && sameToken(form._csrf, login.csrfToken)) {
      service.store.logins.delete(token);
    }
    clearLoginCookie(c, secure);
    return c.redirect('/login', 303);
  });

  return app;
}
