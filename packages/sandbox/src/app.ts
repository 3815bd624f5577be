import { httpInstrumentationMiddleware } from '@hono/otel';
import { API_MAX_BODY_BYTES, HEADERS } from '@kyc/contracts';
import { Hono } from 'hono';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import { apiError } from './api/api-error.js';
import { basicAuth } from './api/basic-auth.js';
import { cliTokenRoutes } from './api/cli-token-routes.js';
import type { LoginThrottle } from './api/login-throttle.js';
import { portalRoutes } from './api/portal-routes.js';
import { sandboxRoutes } from './api/sandbox-routes.js';
import { serviceRoutes } from './api/service-routes.js';
import { SIGNING_SECRET_API, signingSecretRoutes } from './api/signing-secret-routes.js';
import { requireLogin } from './dashboard/dashboard-auth.js';
import { deliveriesRoutes } from './dashboard/deliveries-routes.js';
import { healthRoutes } from './dashboard/health-routes.js';
import { loginRoutes } from './dashboard/login-routes.js';
import { PORTAL_SCRIPT, PORTAL_SCRIPT_PATH } from './dashboard/portal-script.js';
import { sessionsRoutes } from './dashboard/sessions-routes.js';
import { settingsRoutes } from './dashboard/settings-routes.js';
import { ERROR_CODE } from './domain/enum-values.js';
import type { PortalService } from './portal/portal-service.js';
import { referenceHeaders } from './reference/reference-headers.js';
import { isReferencePath } from './reference/reference-paths.js';
import { referenceRoutes } from './reference/reference-routes.js';
import type { SandboxLogger } from './sandbox-options.js';
import type { SandboxService } from './sandbox-service.js';
import { limitBody } from './server/limit-body.js';
import type { SigningSecretService } from './signing/signing-secret-service.js';
import { opsRoutes, type Readiness } from './telemetry/ops-routes.js';
import type { SandboxTelemetry } from './telemetry/start-telemetry.js';

const isApi = (path: string) => path.startsWith('/api/') || path.startsWith('/sandbox/');

/** Wires middleware and routes: request ids and security headers everywhere, Basic auth on the APIs, logins on the dashboard. */
export function createApp(
  service: SandboxService,
  portal: PortalService,
  options: {
    secureCookies: boolean;
    /** Shared with the listener's upgrade: one count of failed logins per username. */
    throttle: LoginThrottle;
    logger: SandboxLogger | undefined;
    telemetry: SandboxTelemetry | undefined;
    readiness: () => Promise<Readiness>;
    signing: SigningSecretService;
  },
): Hono {
  const app = new Hono();
  app.use(requestId({ headerName: HEADERS.requestId }));
  const siteHeaders = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      // One same-origin script (progressive enhancement) and its live-update requests.
      scriptSrc: ["'self'"],
      connectSrc: ["'self'"],
      styleSrc: ["'unsafe-inline'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  });
  // The API reference page renders with Swagger UI, which needs its stylesheet and data: icons.
  app.use((c, next) => (isReferencePath(c.req.path) ? referenceHeaders(c, next) : siteHeaders(c, next)));
  // Pages can show a freshly generated Auth Key and API answers carry session data: never cache them.
  app.use(async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });
  // Probes and scrapes first: no login, and no span per scrape every few seconds.
  app.route('/', opsRoutes(options.readiness, options.telemetry));
  // An HTTP SERVER span per request, continuing an incoming traceparent; no header is recorded.
  app.use(
    httpInstrumentationMiddleware({
      serviceName: 'kyc-sandbox',
      ...(options.telemetry && {
        tracerProvider: options.telemetry.tracerProvider,
        meterProvider: options.telemetry.meterProvider,
      }),
    }),
  );
  app.use(
    limitBody(API_MAX_BODY_BYTES, (c) =>
      apiError(c, 413, ERROR_CODE.PAYLOAD_TOO_LARGE, `Bodies are limited to ${API_MAX_BODY_BYTES} bytes.`),
    ),
  );

  const throttle = options.throttle;
  // The service API takes the operator-issued password only (spec §5); the sandbox's own API
  // also takes the token `kyc-sandbox login` made.
  app.use('/api/*', basicAuth(service, throttle));
  app.use('/sandbox/*', basicAuth(service, throttle, { acceptCliTokens: true }));
  // Browsers may replay cached Basic credentials: refuse cross-site form posts (Origin check).
  app.use('/sandbox/portal/*', csrf());
  app.use(SIGNING_SECRET_API.secret, csrf());
  app.use(`${SIGNING_SECRET_API.secret}/*`, csrf());
  app.route('/', referenceRoutes());
  app.route('/', serviceRoutes(service));
  app.route('/', sandboxRoutes(service));
  app.route('/', portalRoutes(portal));
  app.route('/', cliTokenRoutes(service));
  app.route('/', signingSecretRoutes(options.signing));

  // Origin / Sec-Fetch-Site check first, then the login's synchronizer token in requireLogin.
  app.use('/login', csrf());
  app.use('/logout', csrf());
  app.use('/dashboard/*', csrf(), requireLogin(service, options.secureCookies));
  app.route('/', loginRoutes(service, options.secureCookies, throttle));
  app.route('/', settingsRoutes(service, portal, options.signing));
  app.route('/', sessionsRoutes(service));
  app.route('/', deliveriesRoutes(portal));
  app.route('/', healthRoutes(portal));
  app.get(PORTAL_SCRIPT_PATH, (c) => c.body(PORTAL_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8' }));

  app.notFound((c) =>
    isApi(c.req.path) ? apiError(c, 404, ERROR_CODE.NOT_FOUND, 'No such endpoint.') : c.text('Not found.', 404),
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
