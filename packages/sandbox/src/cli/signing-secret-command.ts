import { SIGNING_SECRET_API } from '../api/signing-secret-routes.js';
import { ageText, type RevealedSigningSecret, type SigningSecretStatus } from '../signing/signing-secret-views.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { integerFlag, parse } from './parse-flags.js';
import { serviceCall } from './service-call.js';
import { readPassword, serviceLogin } from './service-login.js';

const ACTIONS = ['show', 'create', 'rotate', 'end-overlap', 'remove', 'reveal'] as const;
const USAGE = `usage: kyc-sandbox signing-secret ${ACTIONS.join('|')} [--overlap-hours <0-168>] [--user <name>] [--service <url>]`;

/** One line per active secret: label, role, age and when an old one stops. Never a value. */
function describe(status: SigningSecretStatus, now = Date.now()): string {
  if (!status.signing) return 'No signing secret: deliveries are not signed.\n';
  return status.secrets
    .map((s) => {
      const stops =
        s.stopsAt === null ? '' : `, stops signing at ${s.stopsAt} (in ${ageText(Date.parse(s.stopsAt) - now)})`;
      return `${s.label} (${s.role}), created ${ageText(now - Date.parse(s.createdAt))} ago${stops}\n`;
    })
    .join('');
}

/**
 * `kyc-sandbox signing-secret show|create|rotate|end-overlap|remove|reveal`: the company's
 * signing secret from the terminal, as on the Settings page. Only `reveal` prints a secret, and
 * it asks for the password again (KYC_SANDBOX_PASSWORD, a hidden prompt or piped stdin), even
 * with a saved login; create and rotate print the new label and point at reveal.
 */
export async function signingSecretCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    'overlap-hours': { type: 'string' },
    service: { type: 'string' },
    user: { type: 'string', short: 'u' },
  });
  const [action, ...rest] = positionals;
  if (action === undefined || !(ACTIONS as readonly string[]).includes(action) || rest.length > 0) {
    throw new CliError(action === undefined ? USAGE : `unknown action "${action}"\n${USAGE}`, 2);
  }
  if (values['overlap-hours'] !== undefined && action !== 'rotate') {
    throw new CliError('--overlap-hours goes with rotate only', 2);
  }
  const login = await serviceLogin(values, io);
  // A change goes as JSON ({} when it has nothing to say): the API refuses body-less posts as a browser form's.
  const status = (path: string, method = 'GET', body: unknown = method === 'GET' ? undefined : {}) =>
    serviceCall(login, method, path, body) as Promise<SigningSecretStatus & { secret?: RevealedSigningSecret }>;
  switch (action) {
    case 'show':
      io.out(describe(await status(SIGNING_SECRET_API.secret)));
      return 0;
    case 'create':
    case 'rotate': {
      const hours = integerFlag('overlap-hours', values['overlap-hours'], 24, 0, 168);
      const made =
        action === 'create'
          ? await status(SIGNING_SECRET_API.secret, 'POST')
          : await status(SIGNING_SECRET_API.rotate, 'POST', { overlapSeconds: hours * 3600 });
      io.out(`${made.secret?.label} is the new signing secret.\n${describe(made)}`);
      io.out('See it with: kyc-sandbox signing-secret reveal (asks for your password)\n');
      return 0;
    }
    case 'end-overlap':
      io.out(describe(await status(SIGNING_SECRET_API.endOverlap, 'POST')));
      return 0;
    case 'remove':
      io.out(describe(await status(SIGNING_SECRET_API.secret, 'DELETE')));
      return 0;
    default: {
      const password = await readPassword(login.username, login.service, io, process.env);
      const shown = (await serviceCall(login, 'POST', SIGNING_SECRET_API.reveal, { password })) as {
        secrets: RevealedSigningSecret[];
      };
      if (shown.secrets.length === 0) io.out('No signing secret is set.\n');
      // The one output that holds a secret: what the person asked to see, after the password.
      for (const s of shown.secrets) io.out(`${s.label} (${s.role}): ${s.secret}\n`);
      return 0;
    }
  }
}
