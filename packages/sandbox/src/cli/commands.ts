import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { API_BASE_PATH } from '@kyc/contracts';
import { checkEndpoint, formatCheckReport } from '../check/check-endpoint.js';
import { createSandbox } from '../create-sandbox.js';
import { startSandbox } from '../start-sandbox.js';
import { jsonLogger } from '../telemetry/json-logger.js';
import { startTelemetry } from '../telemetry/start-telemetry.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { integerFlag, parse, readPem } from './parse-flags.js';
import { readFirstLine, readHiddenLine } from './read-stdin.js';

export type { CliIo } from './cli-io.js';

/** Where the SQLite files live without `--data-dir`. */
export const DEFAULT_DATA_DIR = './kyc-sandbox-data';

/** The secrets key from the environment (`KYC_SECRETS_KEY`), when set: otherwise the key file beside the data folder. */
const secretsKey = () => {
  const text = process.env.KYC_SECRETS_KEY;
  return text === undefined || text === '' ? {} : { secretsKey: text };
};

/** `kyc-sandbox start`: runs until SIGINT/SIGTERM, then shuts down gracefully. */
export async function startCommand(args: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parse(args, {
    port: { type: 'string' },
    host: { type: 'string' },
    'data-dir': { type: 'string' },
    'time-scale': { type: 'string' },
    'allow-loopback-targets': { type: 'boolean' },
    'trust-ca': { type: 'string' },
    https: { type: 'boolean' },
    'log-format': { type: 'string' },
  });
  if (positionals.length > 0) throw new CliError(`start takes no arguments (got "${positionals[0]}")`, 2);
  const logFormat = values['log-format'] ?? 'text';
  if (logFormat !== 'text' && logFormat !== 'json') {
    throw new CliError(`--log-format must be text or json (got "${logFormat}")`, 2);
  }
  const port = integerFlag('port', values.port, 8080, 0, 65535);
  if (!Number.isInteger(port)) throw new CliError('--port must be a whole number', 2);
  const timeScale = integerFlag('time-scale', values['time-scale'], 1, 1, 600);
  const dataDir = values['data-dir'] ?? DEFAULT_DATA_DIR;
  const allowLoopbackTargets = values['allow-loopback-targets'] === true;
  const json = logFormat === 'json';
  const logger = json
    ? jsonLogger((line) => io.out(line))
    : {
        info: (m: string) => io.out(`${new Date().toISOString()} ${m}\n`),
        warn: (m: string) => io.err(`warn: ${m}\n`),
        error: (m: string) => io.err(`error: ${m}\n`),
      };
  // The CLI's own lines: plain text for a person, or one JSON event each, so that with
  // --log-format json every line the process writes parses (a log shipper drops the rest).
  const notice = (text: string, fields: Readonly<Record<string, unknown>> = {}) =>
    json ? logger.info?.(text, { event: 'sandbox.lifecycle', ...fields }) : io.out(`${text}\n`);
  const caution = (text: string) => (json ? logger.warn?.(text, { event: 'sandbox.lifecycle' }) : io.err(`${text}\n`));
  if (allowLoopbackTargets) {
    caution(
      '!!! --allow-loopback-targets: webhooks may be sent to 127.0.0.0/8 and ::1. Never use this outside local testing.',
    );
  }
  if (timeScale !== 1)
    caution(`!!! --time-scale ${timeScale}: retries come ${timeScale}× sooner than the protocol's schedule.`);
  const telemetry = startTelemetry({ warn: (m) => logger.warn?.(m) });
  const running = await startSandbox({
    port,
    host: values.host ?? '127.0.0.1',
    dataDir,
    timeScale,
    allowLoopbackTargets,
    trustedCa: readPem('trust-ca', values['trust-ca']),
    https: values.https === true,
    ...secretsKey(),
    logger,
    ...(telemetry && { telemetry }),
  }).catch(async (error: unknown) => {
    await telemetry?.shutdown();
    throw error;
  });
  const { url } = running;
  // Only the certificate (public) is written, so a client on this machine can trust it.
  let certificateFile: string | undefined;
  if (running.certificate !== undefined) {
    certificateFile = join(dataDir, 'https-certificate.pem');
    writeFileSync(certificateFile, running.certificate);
  }
  const exporters = telemetry?.exporters;
  const traces = exporters?.traces.join(', ') || 'not exported (set OTEL_EXPORTER_OTLP_ENDPOINT)';
  const banner = [
    `KYC sandbox listening on ${url}`,
    `  dashboard:   ${url}/login`,
    `  service API: ${url}${API_BASE_PATH}`,
    `  data folder: ${dataDir}`,
    `  secrets key: ${process.env.KYC_SECRETS_KEY ? 'KYC_SECRETS_KEY' : `${resolve(dataDir)}.key (keep it out of the folder's backups)`}`,
    ...(certificateFile === undefined
      ? []
      : [
          `  certificate: ${certificateFile} (self-signed, made at this start; clients trust it with NODE_EXTRA_CA_CERTS=${certificateFile})`,
        ]),
    ...(exporters === undefined
      ? ['  telemetry:   off (OTEL_SDK_DISABLED=true)']
      : [
          `  probes:      ${url}/healthz ${url}/readyz`,
          `  metrics:     ${exporters.metrics.join(', ')}; traces: ${traces}`,
        ]),
    ...(running.sandbox.userCount() === 0 ? [`  no users yet: kyc-sandbox user add <name> --data-dir ${dataDir}`] : []),
  ];
  if (json) {
    notice(banner[0] ?? '', {
      url,
      dataDir,
      ...(certificateFile !== undefined && { certificateFile }),
      telemetry: exporters === undefined ? 'off' : { metrics: exporters.metrics, traces: exporters.traces },
      users: running.sandbox.userCount(),
    });
  } else {
    io.out(`${banner.join('\n')}\n`);
  }
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        caution(`${signal} again: exiting now`);
        process.exit(1);
      }
      stopping = true;
      notice(`${signal}: shutting down (letting deliveries in flight finish)`, { signal });
      void running
        .close()
        .then(() => telemetry?.shutdown())
        .then(resolve, (error: unknown) => {
          if (json)
            logger.error?.(`error during shutdown: ${(error as Error).message}`, { event: 'sandbox.lifecycle' });
          else io.err(`error during shutdown: ${(error as Error).message}\n`);
          resolve();
        });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  notice('stopped');
}

/** A password typed at a terminal (not echoed), or the first line of piped stdin. */
async function readPassword(io: CliIo): Promise<string> {
  if (!process.stdin.isTTY) return readFirstLine();
  const typed = await readHiddenLine(() => io.err('Password (not shown): '));
  io.err('\n');
  if (typed === undefined) throw new CliError('cancelled', 1);
  return typed;
}

/** `kyc-sandbox user add <name>`: prints the user and company, never the password. */
export async function userCommand(args: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parse(args, {
    password: { type: 'string' },
    company: { type: 'string' },
    'data-dir': { type: 'string' },
  });
  const [action, name, ...rest] = positionals;
  if (action !== 'add' || name === undefined || rest.length > 0) {
    throw new CliError('usage: kyc-sandbox user add <name> [--password <password>] [--company <name>]', 2);
  }
  const password = values.password ?? (await readPassword(io));
  if (password === '') throw new CliError('no password given: pass --password or pipe it on stdin', 2);
  const sandbox = await createSandbox({ dataDir: values['data-dir'] ?? DEFAULT_DATA_DIR, ...secretsKey() });
  try {
    const user = await sandbox.addUser(name, password, values.company ? { company: values.company } : {});
    io.out(`user "${user.username}" added to company "${user.company}"\n`);
  } finally {
    await sandbox.close();
  }
}

/** `kyc-sandbox check-endpoint <url> --auth-key <key> [--signing-secret <whsec_…>]`: exit code 1 when any check fails. */
export async function checkEndpointCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    'auth-key': { type: 'string' },
    'signing-secret': { type: 'string' },
    ca: { type: 'string' },
    'allow-loopback': { type: 'boolean' },
  });
  const [url, ...rest] = positionals;
  if (url === undefined || rest.length > 0)
    throw new CliError('usage: kyc-sandbox check-endpoint <url> --auth-key <key>', 2);
  const authKey = values['auth-key'] ?? process.env.KYC_AUTH_KEY;
  if (!authKey) throw new CliError('--auth-key is required (or set KYC_AUTH_KEY)', 2);
  // The flag, or the variable the examples read (during a rotation it lists two: the first signs).
  const signingSecret = values['signing-secret'] ?? process.env.KYC_SIGNING_SECRETS?.split(/[\s,]+/)[0];
  const report = await checkEndpoint(url, {
    authKey,
    ...(signingSecret ? { signingSecret } : {}),
    ca: readPem('ca', values.ca),
    allowLoopback: values['allow-loopback'] === true,
  });
  io.out(formatCheckReport(report));
  return report.ok ? 0 : 1;
}
