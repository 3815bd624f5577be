import { HEADERS } from '@kyc/contracts';
import { Hono } from 'hono';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import { apiError } from './api/api-error.js';
import { basicAuth } from './api/basic-auth.js';
import { LoginThrottle } from './api/login-throttle.js';
import { sandboxRoutes } from './api/sandbox-routes.js';
import { serviceRoutes } from './api/service-routes.js';
import { requireLogin } from './dashboard/dashboard-auth.js';
import { deliveriesRoutes } from './dashboard/deliveries-routes.js';
import { loginRoutes } from './dashboard/login-routes.js';
import { sessionsRoutes } from './dashboard/sessions-routes.js';
import { settingsRoutes } from './dashboard/settings-routes.js';
import { ERROR_CODE } from './domain/enum-values.js';
import type { SandboxLogger } from './sandbox-options.js';
import type { SandboxService } from './sandbox-service.js';
import { limitBody } from './server/limit-body.js';

const MAX_BODY_BYTES = 256 * 1024;
const isApi = (path: string) => path.startsWith('/api/') || path.startsWith('/sandbox/');

/** Wires middleware and routes: request ids and security headers everywhere, Basic auth on the APIs, logins on the dashboard. */
export function createApp(
  service: SandboxService,
  options: { secureCookies: boolean; logger: SandboxLogger | undefined },
): Hono {
  const app = new Hono();
  app.use(requestId({ headerName: HEADERS.requestId }));
  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        styleSrc: ["'unsafe-inline'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    }),
  );
  // Pages can show a freshly generated Auth Key and API answers carry session data: never cache them.
  app.use(async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });
  app.use(
    limitBody(MAX_BODY_BYTES, (c) =>
      apiError(c, 413, 'PAYLOAD_TOO_LARGE', `Bodies are limited to ${MAX_BODY_BYTES} bytes.`),
    ),
  );

  // One throttle for the API and the dashboard: both accept the same passwords.
  const throttle = new LoginThrottle();
  const auth = basicAuth(service, throttle);
  app.use('/api/*', auth);
  app.use('/sandbox/*', auth);
  app.route('/', serviceRoutes(service));
  app.route('/', sandboxRoutes(service));

  // Origin / Sec-Fetch-Site check first, then the login's synchronizer token in requireLogin.
  app.use('/login', csrf());
  app.use('/logout', csrf());
  app.use('/dashboard/*', csrf(), requireLogin(service, options.secureCookies));
  app.route('/', loginRoutes(service, options.secureCookies, throttle));
  app.route('/', settingsRoutes(service));
  app.route('/', sessionsRoutes(service));
  app.route('/', deliveriesRoutes(service));

  app.notFound((c) =>
    isApi(c.req.path) ? apiError(c, 404, 'NOT_FOUND', 'No such endpoint.') : c.text('Not found.', 404),
  );
  app.onError((error, c) => {
    if (error instanceof HTTPException) {
      const response = error.getResponse();
      response.headers.set(HEADERS.requestId, c.get('requestId'));
      return response;
    }
    options.logger?.error?.(`request ${c.get('requestId')} failed: ${error.name}: ${error.message}`);
    return isApi(c.req.path)
      ? apiError(c, 500, ERROR_CODE.INTERNAL, `Internal error; quote request id ${c.get('requestId')}.`)
      : c.text(`Internal error; quote request id ${c.get('requestId')}.`, 500);
  });
  return app;
}
