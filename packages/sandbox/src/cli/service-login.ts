import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { readFirstLine, readHiddenLine } from './read-stdin.js';
import { readSavedLogin, savedLoginPath } from './saved-login.js';

/** The sandbox's address when neither --service nor KYC_SANDBOX_URL names one: `kyc-sandbox start`'s default. */
export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8080';

/** Where the CLI talks to the sandbox, and as whom. */
export interface ServiceLogin {
  readonly service: URL;
  readonly username: string;
  /** The `Authorization` value: HTTP Basic with the password, or the saved login's Bearer token. */
  readonly authorization: string;
  /** What to do when the service refuses it. */
  readonly retry: string;
}

/** The environment variables the CLI reads, so scripts and shells need no flags. */
export const LOGIN_ENV = Object.freeze({
  service: 'KYC_SANDBOX_URL',
  user: 'KYC_SANDBOX_USER',
  password: 'KYC_SANDBOX_PASSWORD',
});

/** A `--service` value as a base URL (a scheme is optional; http:// is assumed). */
export function serviceUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z\d+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    throw new CliError(`--service "${value}" is not a URL; use e.g. https://sandbox.example.com`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`--service must be an http:// or https:// URL (got ${url.protocol})`, 2);
  }
  if (url.username !== '' || url.password !== '') {
    throw new CliError(`--service must not carry credentials: use --user and ${LOGIN_ENV.password}`, 2);
  }
  url.search = '';
  url.hash = '';
  return url;
}

/** The URL of a path of the service (which may itself live under a path prefix). */
export const serviceEndpoint = (service: URL, path: string): URL =>
  new URL(`${service.origin}${service.pathname.replace(/\/+$/, '')}${path}`);

const sameService = (a: URL, b: URL) => serviceEndpoint(a, '').href === serviceEndpoint(b, '').href;

/** The password: KYC_SANDBOX_PASSWORD, typed at a hidden prompt, or the first line of piped stdin. */
export async function readPassword(username: string, service: URL, io: CliIo, env: NodeJS.ProcessEnv): Promise<string> {
  let password = env[LOGIN_ENV.password];
  if (password === undefined || password === '') {
    if (process.stdin.isTTY) {
      const typed = await readHiddenLine(() => io.err(`Password for ${username} at ${service.origin} (not shown): `));
      io.err('\n');
      if (typed === undefined) throw new CliError('cancelled', 1);
      password = typed;
    } else {
      password = await readFirstLine();
    }
  }
  if (password === '') {
    throw new CliError(`no password: set ${LOGIN_ENV.password}, type it at the prompt, or pipe it on stdin`, 2);
  }
  return password;
}

/**
 * The service and the dashboard user to act as. With `--user` (or KYC_SANDBOX_USER): HTTP Basic
 * with the password from KYC_SANDBOX_PASSWORD, a hidden prompt or piped stdin, never a flag.
 * Without: the login `kyc-sandbox login` saved, when it is for the same service. The service is
 * `--service`, else KYC_SANDBOX_URL, else the saved login's, else a local `kyc-sandbox start`.
 */
export async function serviceLogin(
  flags: { service?: string | undefined; user?: string | undefined },
  io: CliIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServiceLogin> {
  const named = flags.service ?? env[LOGIN_ENV.service];
  const username = flags.user ?? env[LOGIN_ENV.user];
  if (!username) {
    const saved = readSavedLogin(env);
    if (saved !== undefined && (named === undefined || sameService(serviceUrl(named), new URL(saved.service)))) {
      return {
        service: new URL(saved.service),
        username: saved.username,
        authorization: `Bearer ${saved.token}`,
        retry: `The login saved in ${savedLoginPath(env)} no longer works: run kyc-sandbox login again.`,
      };
    }
    throw new CliError(
      `log in first: kyc-sandbox login --service <url> --user <name> (or pass --user, or set ${LOGIN_ENV.user}), as a user of the sandbox's dashboard`,
      2,
    );
  }
  const service = serviceUrl(named ?? DEFAULT_SERVICE_URL);
  const password = await readPassword(username, service, io, env);
  return {
    service,
    username,
    authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
    retry: `Check --user and the password (${username} must be a user of this sandbox's dashboard).`,
  };
}
