/** Random bytes in a generated key: 256 bits, 43 base64url characters. */
const KEY_BYTES = 32;

/**
 * Returns a new Auth Key: 32 bytes from the platform's cryptographic random source, written as
 * unpadded base64url (43 characters, safe in an HTTP header). It always passes `validateAuthKey`.
 *
 * @example
 * ```ts
 * const authKey = generateAuthKey(); // e.g. 'q3Vx…' (43 characters)
 * ```
 */
export function generateAuthKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(KEY_BYTES));
  return Buffer.from(bytes).toString('base64url');
}
