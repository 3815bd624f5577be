import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { readFirstLine, readHiddenLine } from './read-stdin.js';

/** The sandbox's address when neither --service nor KYC_SANDBOX_URL names one: `kyc-sandbox start`'s default. */
export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8080';

/** Where the CLI talks to the sandbox, and as whom. */
export interface ServiceLogin {
  readonly service: URL;
  readonly username: string;
  readonly password: string;
}

/** The environment variables the CLI reads, so scripts and shells need no flags. */
export const LOGIN_ENV = Object.freeze({
  service: 'KYC_SANDBOX_URL',
  user: 'KYC_SANDBOX_USER',
  password: 'KYC_SANDBOX_PASSWORD',
});

function serviceUrl(value: string): URL {
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

/**
 * The service and the dashboard user to log in as: `--service` or KYC_SANDBOX_URL (default: a
 * local `kyc-sandbox start`), `--user` or KYC_SANDBOX_USER, and the password from
 * KYC_SANDBOX_PASSWORD, typed at a hidden prompt, or the first line of piped stdin. The
 * password never appears on a command line.
 */
export async function serviceLogin(
  flags: { service?: string | undefined; user?: string | undefined },
  io: CliIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServiceLogin> {
  const service = serviceUrl(flags.service ?? env[LOGIN_ENV.service] ?? DEFAULT_SERVICE_URL);
  const username = flags.user ?? env[LOGIN_ENV.user];
  if (!username) {
    throw new CliError(
      `say who you are: --user <name> (or set ${LOGIN_ENV.user}), a user of the sandbox's dashboard`,
      2,
    );
  }
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
  return { service, username, password };
}

/** The URL of a path of the service (which may itself live under a path prefix). */
export const serviceEndpoint = (service: URL, path: string): URL =>
  new URL(`${service.origin}${service.pathname.replace(/\/+$/, '')}${path}`);

/** The `Authorization` value of a login. */
export const basicAuthorization = (login: ServiceLogin): string =>
  `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}`;
