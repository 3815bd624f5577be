import { createConnection } from 'node:net';
import { cannotReachSandbox } from './cannot-reach-sandbox.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { parseForwardTarget } from './forward-target.js';
import { connectOnce } from './listen-client.js';
import { authorizationNotice, clockTime } from './listen-output.js';
import { parse } from './parse-flags.js';
import { serviceLogin } from './service-login.js';

const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;

/** Whether something accepts connections at the target now (a hint at start, not a rule). */
function probe(target: URL): Promise<boolean> {
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 1000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * `kyc-sandbox listen --forward-to <local URL>`: while it runs, the company's webhook
 * deliveries go to this machine instead of the saved URL, one line each. Reconnects by itself
 * after a dropped connection (a missed attempt is retried by the service on its schedule);
 * exits 0 on Ctrl-C or when a newer listener of the company takes over, 1 when the service
 * refuses the login or cannot be reached at all.
 */
export async function listenCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    'forward-to': { type: 'string', short: 'f' },
    service: { type: 'string' },
    user: { type: 'string', short: 'u' },
  });
  if (positionals.length > 0) throw new CliError(`listen takes no arguments (got "${positionals[0]}")`, 2);
  if (values['forward-to'] === undefined) {
    throw new CliError('usage: kyc-sandbox listen --forward-to http://localhost:3000/webhooks/kyc [--user <name>]', 2);
  }
  const target = parseForwardTarget(values['forward-to']);
  const login = await serviceLogin(values, io);
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(130);
    io.err('stopping: waiting for deliveries in flight to report (Ctrl-C again to quit now)\n');
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    if (!(await probe(target))) {
      io.err(
        `warning: nothing accepts connections at ${target.host} yet; deliveries fail (and are retried) until your server runs\n`,
      );
    }
    let everReady = false;
    let backoff = FIRST_BACKOFF_MS;
    for (;;) {
      const end = await connectOnce(login, target, io, stop.signal, (ready) => {
        const scale =
          ready.timeScale === 1 ? '' : `; retries come ${ready.timeScale}× sooner than the protocol's schedule`;
        if (everReady) {
          io.out(`${clockTime(new Date())}  reconnected: forwarding again to ${target.href}\n`);
        } else {
          io.out(`Ready! Forwarding ${ready.company}'s webhooks to ${target.href}\n`);
          io.out(`  logged in as ${ready.username} at ${login.service.origin}${scale}\n`);
          io.out(`  ${authorizationNotice(ready.authKeyLast4)}\n`);
          io.out('  Each delivery prints one line; a failed one says what to fix. Ctrl-C stops.\n\n');
        }
        everReady = true;
        backoff = FIRST_BACKOFF_MS;
      });
      if (end.kind === 'stopped') return 0;
      if (end.kind === 'replaced') {
        io.out(`${clockTime(new Date())}  stopped: ${end.by} took over this company's deliveries\n`);
        return 0;
      }
      if (end.kind === 'refused') {
        const advice = end.status === 401 ? ` ${login.retry}` : '';
        throw new CliError(
          `${login.service.origin} refused the listener (HTTP ${end.status}): ${end.message}${advice}`,
        );
      }
      if (!everReady && end.kind === 'unreachable') {
        throw new CliError(cannotReachSandbox(login.service.origin, end.message));
      }
      const why =
        end.kind === 'dropped' ? `connection closed (${end.reason})` : `cannot reach the sandbox (${end.message})`;
      io.err(`${clockTime(new Date())}  ${why}; reconnecting in ${(backoff / 1000).toFixed(1)} s\n`);
      await pause(backoff, stop.signal);
      if (stop.signal.aborted) return 0;
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
