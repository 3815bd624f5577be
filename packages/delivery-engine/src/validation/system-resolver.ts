import { lookup } from 'node:dns/promises';
import type { Resolver } from '../transport/types.js';

/**
 * The default {@link Resolver}: the operating system's resolver (`getaddrinfo`, so `/etc/hosts`
 * and search domains apply) with every answer, in the order the system gave them. Rejects with
 * the system error (`ENOTFOUND`, `EAI_AGAIN`, …) when the name does not resolve.
 *
 * @example
 * ```ts
 * const answers = await systemResolver.resolve('example.com'); // [{ address: '…', family: 4 }, …]
 * ```
 */
export const systemResolver: Resolver = {
  async resolve(hostname) {
    const answers = await lookup(hostname, { all: true, order: 'verbatim' });
    return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
  },
};
