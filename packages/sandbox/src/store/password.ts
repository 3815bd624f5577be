import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing with scrypt (a memory-hard slow hash from `node:crypto`). The stored form
 * carries its own parameters, so they can be raised later without breaking old hashes:
 * `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>`.
 *
 * N=2^14, r=8, p=5 is one of OWASP's equivalent minimum settings (the same work as N=2^17,
 * r=8, p=1) with 16 MiB of memory per hash instead of 128 MiB, so concurrent logins cannot
 * exhaust the sandbox's memory. About 0.2 s per hash on one core.
 */

const N = 2 ** 14;
const R = 8;
const P = 5;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, n: number, r: number, p: number, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, length, { N: n, r, p, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * Hashes a password for storage.
 *
 * @example
 * ```ts
 * const stored = await hashPassword('correct horse battery staple');
 * await verifyPassword('correct horse battery staple', stored); // true
 * ```
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, N, R, P, KEY_LENGTH);
  return ['scrypt', N, R, P, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** A hash of a random password, verified against when a username is unknown so timing does not tell. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

/** Checks a password against a stored hash in constant time. A malformed hash verifies as `false`. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4] ?? '', 'base64');
  const expected = Buffer.from(parts[5] ?? '', 'base64');
  if (!n || !r || !p || salt.length === 0 || expected.length === 0) return false;
  // Parameters scrypt refuses (N not a power of two, over the memory cap) are a malformed hash.
  const actual = await derive(password, salt, n, r, p, expected.length).catch(() => undefined);
  return actual !== undefined && timingSafeEqual(actual, expected);
}
