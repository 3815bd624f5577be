import { CLI_TOKEN_API } from '../api/cli-token-routes.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { parse } from './parse-flags.js';
import { readSavedLogin, removeSavedLogin, writeSavedLogin } from './saved-login.js';
import { serviceCall } from './service-call.js';
import { serviceLogin } from './service-login.js';

/**
 * `kyc-sandbox login --service <url> --user <name>`: checks the password once and saves a token
 * for `listen` and `trigger` (never the password), readable by this user only.
 */
export async function loginCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    service: { type: 'string' },
    user: { type: 'string', short: 'u' },
  });
  if (positionals.length > 0) throw new CliError(`login takes no arguments (got "${positionals[0]}")`, 2);
  if (!(values.user ?? process.env.KYC_SANDBOX_USER)) {
    throw new CliError('usage: kyc-sandbox login --service <url> --user <name> (the password is asked for)', 2);
  }
  const login = await serviceLogin(values, io);
  const made = (await serviceCall(login, 'POST', CLI_TOKEN_API.tokens)) as {
    token: string;
    username: string;
    company: string;
  };
  const path = writeSavedLogin({
    service: login.service.href,
    username: made.username,
    company: made.company,
    token: made.token,
  });
  io.out(`Logged in as ${made.username} (${made.company}) at ${login.service.origin}.\n`);
  io.out(`Saved to ${path} (readable by you only); kyc-sandbox logout forgets it.\n`);
  return 0;
}

/** `kyc-sandbox logout`: revokes the saved login's token at the service and deletes the file. */
export async function logoutCommand(args: string[], io: CliIo): Promise<number> {
  const { positionals } = parse(args, {});
  if (positionals.length > 0) throw new CliError(`logout takes no arguments (got "${positionals[0]}")`, 2);
  const saved = readSavedLogin();
  if (saved === undefined) {
    io.out('Not logged in.\n');
    return 0;
  }
  const service = new URL(saved.service);
  try {
    await serviceCall(
      { service, username: saved.username, authorization: `Bearer ${saved.token}`, retry: '' },
      'DELETE',
      CLI_TOKEN_API.current,
    );
  } catch (error) {
    // Forget it here all the same; say that the service may still honour it.
    removeSavedLogin();
    throw new CliError(`forgot the login, but could not revoke it at ${service.origin}: ${(error as Error).message}`);
  }
  removeSavedLogin();
  io.out(`Logged out of ${service.origin}.\n`);
  return 0;
}
