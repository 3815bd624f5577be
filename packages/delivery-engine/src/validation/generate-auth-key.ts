/** Random bytes in a generated key: 256 bits, 43 base64url characters. */
const KEY_BYTES = 32;

/**
 * Returns a new Auth Key: 32 bytes from the platform's cryptographic random source, written as
 * unpadded base64url (43 characters, safe in an HTTP header). It always passes `validateAuthKey`,
 * and never starts with `-`: command lines read such a key as an option (a key is drawn again,
 * which about one in 64 draws needs; the rest of the key stays uniformly random).
 *
 * @example
 * ```ts
 * const authKey = generateAuthKey(); // e.g. 'q3Vx…' (43 characters)
 * ```
 */
export function generateAuthKey(): string {
  for (;;) {
    const key = Buffer.from(crypto.getRandomValues(new Uint8Array(KEY_BYTES))).toString('base64url');
    if (!key.startsWith('-')) return key;
  }
}
