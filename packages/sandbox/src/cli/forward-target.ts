import { isIP } from 'node:net';
import { CliError } from './cli-error.js';

const isLoopbackHost = (host: string): boolean => {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
};

/**
 * The local URL `listen` forwards to. Takes what people type: a full URL
 * (`http://localhost:3000/webhooks/kyc`), one without a scheme (`localhost:3000/webhooks/kyc`,
 * plain http assumed) or a bare port (`3000`, `:3000/webhooks/kyc`: localhost). Only this
 * machine: localhost, 127.0.0.0/8 or [::1]; `http:` and `https:`.
 */
export function parseForwardTarget(input: string): URL {
  let text = input.trim();
  if (/^\d+(\/|$)/.test(text)) text = `localhost:${text}`;
  if (text.startsWith(':')) text = `localhost${text}`;
  if (!/^[a-z][a-z\d+.-]*:\/\//i.test(text)) text = `http://${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`--forward-to "${input}" is not a URL; use e.g. http://localhost:3000/webhooks/kyc`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`--forward-to must be an http:// or https:// URL (got ${url.protocol})`, 2);
  }
  if (url.username !== '' || url.password !== '') {
    throw new CliError('--forward-to must not carry a user name or password: the Auth Key is sent as it is', 2);
  }
  if (!isLoopbackHost(url.hostname)) {
    throw new CliError(
      `--forward-to must point at this machine (localhost, 127.0.0.1 or [::1]), not ${url.hostname}: the listener delivers only to a server on your own machine`,
      2,
    );
  }
  return url;
}
