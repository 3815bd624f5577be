import { AUTH_SCHEME, HEADERS } from '@kyc/contracts';

/** Shortest piece of a credential worth hunting for in text: shorter ones match by chance. */
const MIN_SECRET_PIECE = 6;

/**
 * Returns a function that replaces the Authorization value, and its credential part on its
 * own (after `Bearer `), wherever it appears in a text: error messages and response snippets
 * of a receiver that echoes its request end up in the attempt log.
 *
 * @example
 * ```ts
 * secretRedactor({ authorization: 'Bearer k3y-abcdef' })('echo: k3y-abcdef'); // 'echo: [redacted]'
 * ```
 */
export function secretRedactor(headers: Readonly<Record<string, string>>): (text: string) => string {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== HEADERS.authorization || typeof value !== 'string') continue;
    for (const piece of [value, ...value.split(/\s+/)]) {
      if (piece.length < MIN_SECRET_PIECE || piece.toLowerCase() === AUTH_SCHEME.toLowerCase()) continue;
      if (!secrets.includes(piece)) secrets.push(piece);
    }
  }
  // Longest first, so the whole value is replaced before its parts.
  secrets.sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return (text) => text;
  return (text) => {
    let result = text;
    for (const secret of secrets) if (result.includes(secret)) result = result.replaceAll(secret, '[redacted]');
    return result;
  };
}
