import { Socket } from 'node:net';

/**
 * Gates for suites that need a real server (Postgres, Redis, Chromium), used as
 * `describe.skipIf(!(await postgresAvailable()))(…)`. In CI
 * (`KYC_REQUIRE_SERVICES=1`, set by `.ci/run`) an unreachable server fails the run; elsewhere
 * the suite is skipped with one loud line naming the server and the reason.
 */

export const POSTGRES_URL = process.env.KYC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.KYC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** MariaDB (or MySQL): root without a password, database `test`, as `.ci/run` starts it. */
export const MYSQL_URL = process.env.KYC_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
export const CHROMIUM_PATH = process.env.KYC_TEST_CHROMIUM ?? '/usr/bin/chromium';

export const servicesRequired = process.env.KYC_REQUIRE_SERVICES === '1';

function canConnect(url: string, defaultPort: number, timeoutMs = 1500): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (reason: string | undefined) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs} ms`));
    socket.once('error', (error) => done(error.message));
    socket.connect(Number(port || defaultPort), hostname.replace(/^\[|\]$/g, ''), () => done(undefined));
  });
}

async function fileExists(path: string): Promise<string | undefined> {
  const { access } = await import('node:fs/promises');
  return access(path).then(
    () => undefined,
    () => `${path} not found (apt-get install -y chromium)`,
  );
}

/** Resolves to `true` when the service answers; throws in CI when it does not. */
async function gate(name: string, reason: Promise<string | undefined>): Promise<boolean> {
  const problem = await reason;
  if (problem === undefined) return true;
  if (servicesRequired) {
    throw new Error(`${name} is required (KYC_REQUIRE_SERVICES=1) but unreachable: ${problem}`);
  }
  console.warn(`\n!!! SKIPPING ${name} suites: ${problem}. Set KYC_REQUIRE_SERVICES=1 to make this an error.\n`);
  return false;
}

let postgres: Promise<boolean> | undefined;
let redis: Promise<boolean> | undefined;
let chromium: Promise<boolean> | undefined;
let mysql: Promise<boolean> | undefined;

export const postgresAvailable = (): Promise<boolean> =>
  (postgres ??= gate(`Postgres at ${POSTGRES_URL}`, canConnect(POSTGRES_URL, 5432)));
export const redisAvailable = (): Promise<boolean> =>
  (redis ??= gate(`Redis at ${REDIS_URL}`, canConnect(REDIS_URL, 6379)));
export const mysqlAvailable = (): Promise<boolean> =>
  (mysql ??= gate(`MySQL/MariaDB at ${MYSQL_URL}`, canConnect(MYSQL_URL, 3306)));
export const chromiumAvailable = (): Promise<boolean> =>
  (chromium ??= gate(`Chromium at ${CHROMIUM_PATH}`, fileExists(CHROMIUM_PATH)));
