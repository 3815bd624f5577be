import { Hono } from 'hono';
import { ERROR_CODE } from '../domain/enum-values.js';
import type { SandboxService } from '../sandbox-service.js';
import { apiError } from './api-error.js';
import type { AuthVariables } from './basic-auth.js';

/** Paths of `kyc-sandbox login` and `logout`. */
export const CLI_TOKEN_API = Object.freeze({
  tokens: '/sandbox/cli-tokens',
  current: '/sandbox/cli-tokens/current',
});

/**
 * `kyc-sandbox login` trades the user's password (HTTP Basic) for a token the CLI saves instead;
 * `logout` revokes the token it holds. A token cannot make another token.
 */
export function cliTokenRoutes(service: SandboxService): Hono<{ Variables: AuthVariables }> {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.post(CLI_TOKEN_API.tokens, (c) => {
    if (c.get('cliToken') !== undefined) {
      return apiError(c, 403, ERROR_CODE.FORBIDDEN, 'Log in with the password to make a new kyc-sandbox login.');
    }
    const user = c.get('user');
    const token = service.store.cliTokens.create(user.id, Date.now());
    return c.json({ token, username: user.username, company: c.get('company').name }, 201);
  });

  app.delete(CLI_TOKEN_API.current, (c) => {
    const token = c.get('cliToken');
    if (token === undefined) {
      return apiError(c, 400, ERROR_CODE.INVALID_REQUEST, 'Send the kyc-sandbox login token to revoke as Bearer.');
    }
    service.store.cliTokens.revoke(token);
    return c.body(null, 204);
  });

  return app;
}
