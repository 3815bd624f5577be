import type { ResolvedAddress, Resolver } from '../transport/types.js';
import type { AddressPolicy } from './address-policy.js';
import { checkHostName, LOCALHOST_ADDRESSES } from './host-name.js';
import { parseIp } from './parse-ip.js';

/** Longest webhook URL accepted: far above real endpoints, low enough to bound every check. */
export const MAX_WEBHOOK_URL_LENGTH = 4096;

/** Stable codes of a rejected webhook URL. */
export type WebhookUrlErrorCode =
  | 'not_a_string'
  | 'invalid_url'
  | 'not_https'
  | 'userinfo'
  | 'blocked_address'
  | 'dns_error'
  | 'dns_timeout'
  | 'aborted'
  | 'invalid_option';

/** A URL that passed: the parsed URL to send to, and the vetted addresses to dial. */
export interface VettedUrl {
  readonly ok: true;
  readonly url: URL;
  /** Every address the host resolved to (or the literal itself); all passed the policy. */
  readonly addresses: ResolvedAddress[];
  /** The host was an IP literal: there is nothing to resolve or pin. */
  readonly literal: boolean;
  /** No DNS was asked (an IP literal or a `localhost` name): the same text always gets the same answer. */
  readonly fixed: boolean;
}

/** A URL that failed, with a message that names the host but never the path, query or userinfo. */
export interface RejectedUrl {
  readonly ok: false;
  readonly code: WebhookUrlErrorCode;
  readonly message: string;
}

export interface VetContext {
  readonly policy: AddressPolicy;
  readonly resolver: Resolver;
  /**
   * Aborts the lookup (engine stop, or the attempt deadline). A function is called only when a
   * lookup is actually needed, so callers on a hot path can build the signal lazily.
   */
  readonly signal?: AbortSignal | (() => AbortSignal) | undefined;
  /** Reports why `signal` fired: `dns_timeout` for a deadline, `aborted` for a stop. */
  readonly abortCode?: (() => 'dns_timeout' | 'aborted') | undefined;
}

const reject = (code: WebhookUrlErrorCode, message: string): RejectedUrl => ({ ok: false, code, message });

function parse(text: unknown): URL | RejectedUrl {
  if (typeof text !== 'string') return reject('not_a_string', `webhook URL must be a string (got ${typeof text})`);
  if (text.length > MAX_WEBHOOK_URL_LENGTH) {
    return reject(
      'invalid_url',
      `webhook URL is ${text.length} characters long; at most ${MAX_WEBHOOK_URL_LENGTH} allowed`,
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The text may carry a token in its query or userinfo: do not echo it.
    return reject('invalid_url', 'webhook URL is not an absolute URL (expected https://host[:port]/path)');
  }
  if (url.protocol !== 'https:') {
    return reject(
      'not_https',
      `webhook URL must use https: (got ${url.protocol.slice(0, 20)} for host "${url.hostname}")`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    return reject(
      'userinfo',
      `webhook URL for host "${url.hostname}" must not contain a user name or password before "@"; the Auth Key is sent in the Authorization header`,
    );
  }
  if (url.port === '0') return reject('invalid_url', `webhook URL for host "${url.hostname}" has port 0`);
  return url;
}

function answersOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((answer: unknown) =>
    typeof answer === 'object' && answer !== null && 'address' in answer ? String(answer.address) : String(answer),
  );
}

async function lookup(name: string, ctx: VetContext): Promise<string[] | RejectedUrl> {
  const signal = typeof ctx.signal === 'function' ? ctx.signal() : ctx.signal;
  const abortCode = () => ctx.abortCode?.() ?? 'aborted';
  const aborted = (): RejectedUrl =>
    abortCode() === 'dns_timeout'
      ? reject('dns_timeout', `looking up host "${name}" did not finish before the deadline`)
      : reject('aborted', `looking up host "${name}" was aborted`);
  if (signal?.aborted) return aborted();
  let onAbort: (() => void) | undefined;
  // A resolver that ignores the signal must not hold the caller past its deadline.
  const abortedPromise = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const raced = await Promise.race([ctx.resolver.resolve(name, signal), abortedPromise]);
    if (raced === 'aborted' || signal?.aborted) return aborted();
    const answers = answersOf(raced);
    if (answers === undefined || answers.length === 0) {
      return reject('dns_error', `host "${name}" resolved to no address`);
    }
    return answers;
  } catch (error) {
    if (signal?.aborted) return aborted();
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
    return reject('dns_error', `looking up host "${name}" failed${code === undefined ? '' : ` (${code})`}`);
  } finally {
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Parses a webhook URL, resolves its host once and checks every answer against the address
 * policy: the shared core of `validateWebhookUrl` (configuration time) and the transport (send
 * time), so both apply one rule. Never throws.
 */
export async function vetUrl(text: unknown, ctx: VetContext): Promise<VettedUrl | RejectedUrl> {
  const url = parse(text);
  if (!(url instanceof URL)) return url;
  const where = (host: string) => `webhook URL host "${host}"`;
  const literal = parseIp(url.hostname);
  let answers: string[];
  let looked: string[] | undefined;
  let name: string;
  if (literal !== undefined) {
    name = url.hostname;
    answers = [url.hostname];
  } else {
    const host = checkHostName(url.hostname);
    if (!host.ok) return reject('invalid_url', `${where(url.hostname.slice(0, 80))}: ${host.reason}`);
    name = host.name;
    if (host.localhost) {
      answers = [...LOCALHOST_ADDRESSES];
    } else {
      const result = await lookup(name, ctx);
      if (!Array.isArray(result)) return result;
      looked = result;
      answers = result;
    }
  }
  const addresses: ResolvedAddress[] = [];
  for (const answer of answers) {
    const check = ctx.policy.check(answer);
    if (!check.ok) {
      const via =
        literal !== undefined
          ? ''
          : looked === undefined
            ? ' is a localhost name, which always means loopback:'
            : ' resolves to an address that is blocked:';
      return reject('blocked_address', `${where(name)}${via || ':'} ${check.reason}`);
    }
    addresses.push(check.address);
  }
  return { ok: true, url, addresses, literal: literal !== undefined, fixed: looked === undefined };
}
