import type { ResolvedAddress, Resolver } from '../../src/transport/types.js';

/**
 * An in-test resolver: answers from a script, one entry per call (the last repeats), and
 * records each question, so rebinding, mixed answers and resolver failures can be staged.
 */
export function scriptedResolver(...script: Array<readonly string[] | Error>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async resolve(hostname) {
      asked.push(hostname);
      const next = script[Math.min(asked.length, script.length) - 1];
      if (next === undefined) throw new Error('empty script');
      if (next instanceof Error) throw next;
      return next.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  };
}
