import { VERIFICATION_STATUSES, type VerificationStatus } from '@kyc/contracts';
import { PORTAL_API } from '../api/portal-routes.js';
import { SANDBOX_API } from '../api/sandbox-routes.js';
import { PAYLOAD_SHAPES, type PayloadShape } from '../domain/enum-values.js';
import { isListenerUrl } from '../listen/listener-url.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { clockTime } from './listen-output.js';
import { parse } from './parse-flags.js';
import { serviceCall } from './service-call.js';
import { serviceLogin } from './service-login.js';

const SHAPE_NAMES: Readonly<Record<PayloadShape, string>> = {
  v1: 'the v1 body',
  status: 'the status body',
  both: 'one body with both groups',
};
const STATUS_NAMES = VERIFICATION_STATUSES.map((s) => s.toLowerCase());
const USAGE = `usage: kyc-sandbox trigger ${STATUS_NAMES.join('|')} [--shape ${PAYLOAD_SHAPES.join('|')}] [--user <name>]`;

interface Delivery {
  eventId: string;
  state: string;
  url: string | null;
  note: string | null;
}
interface Forwarding {
  host: string;
  address: string;
  forwardTo: string;
  since: string;
}

/**
 * `kyc-sandbox trigger approved|rejected|pending|error [--shape v1|status|both]`: creates a
 * session with that result for the logged-in company and finishes it (the dashboard's Finish:
 * the same outbox and engine as the service API's finish),
 * so its webhook flows at once, to the company's `kyc-sandbox listen` if one is connected,
 * otherwise to its saved URL. Prints where it went; `listen` prints how it was answered.
 */
export async function triggerCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    shape: { type: 'string', short: 's' },
    service: { type: 'string' },
    user: { type: 'string', short: 'u' },
  });
  const [name, ...rest] = positionals;
  if (name === undefined) throw new CliError(USAGE, 2);
  const status = name.toUpperCase() as VerificationStatus;
  if (!VERIFICATION_STATUSES.includes(status)) {
    throw new CliError(`unknown status "${name}": trigger takes ${STATUS_NAMES.join(', ')}\n${USAGE}`, 2);
  }
  if (rest.length > 0) throw new CliError(`unexpected argument "${rest[0]}": trigger takes one status\n${USAGE}`, 2);
  const shape = (values.shape ?? 'both') as PayloadShape;
  if (!PAYLOAD_SHAPES.includes(shape)) {
    throw new CliError(`--shape must be one of ${PAYLOAD_SHAPES.join(', ')} (got "${values.shape}")`, 2);
  }
  const login = await serviceLogin(values, io);
  const session = (await serviceCall(login, 'POST', SANDBOX_API.sessions, { status, shape })) as { id: string };
  await serviceCall(login, 'POST', `${SANDBOX_API.sessions}/${session.id}/finish`);
  const { forwarding } = (await serviceCall(login, 'GET', PORTAL_API.forwarding)) as { forwarding: Forwarding | null };
  // The finish answered once the event was in the outbox; its hand-over to the engine follows at once.
  let delivery: Delivery | undefined;
  for (let i = 0; i < 40; i++) {
    delivery = (await serviceCall(login, 'GET', `${SANDBOX_API.sessions}/${session.id}/delivery`)) as Delivery;
    if (delivery.note !== 'waiting for the outbox relay') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  io.out(`${clockTime(new Date())}  finished ${session.id} as ${status} (${SHAPE_NAMES[shape]})\n`);
  if (delivery === undefined || delivery.state === 'not_sent') {
    io.out(
      `          no webhook: ${delivery?.note ?? 'not handed over yet'}. Run kyc-sandbox listen --forward-to <your local URL> first, or save a webhook URL in Settings.\n`,
    );
    return 1;
  }
  let where: string;
  if (forwarding !== null) where = `kyc-sandbox listen on ${forwarding.host} → ${forwarding.forwardTo}`;
  else if (isListenerUrl(delivery.url)) {
    where = 'kyc-sandbox listen, none connected right now: it is retried on the schedule and reaches the next one';
  } else where = `${delivery.url} (no kyc-sandbox listen is connected)`;
  io.out(`          webhook ${delivery.eventId} → ${where}\n`);
  return 0;
}
