import { secureHeaders } from 'hono/secure-headers';

/**
 * The security headers of the API reference page: like the rest of the sandbox, nothing from
 * another origin, but Swagger UI needs its own stylesheet, `data:` icons and to fetch the
 * document from this origin.
 */
export const referenceHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
  },
});
