import { AUTH_SCHEME, HEADERS } from '@kyc/contracts';

/** Shortest piece of a credential worth hunting for in text: shorter ones match by chance. */
const MIN_SECRET_PIECE = 6;
/** Authorization values whose pieces are remembered (one per endpoint key in use). */
const MAX_REMEMBERED = 256;
const remembered = new Map<string, readonly string[]>();

function authorizationOf(headers: Readonly<Record<string, string>>): string | undefined {
  const direct = headers[HEADERS.authorization];
  if (typeof direct === 'string') return direct;
  for (const name in headers) {
    // The length first: most names are not even as long, and need no lower-casing.
    if (name.length !== HEADERS.authorization.length || name.toLowerCase() !== HEADERS.authorization) continue;
    const value = headers[name];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/** The value and its credential part on its own (after `Bearer `), longest first. */
function piecesOf(value: string): readonly string[] {
  const known = remembered.get(value);
  if (known !== undefined) return known;
  const pieces: string[] = [];
  for (const piece of [value, ...value.split(/\s+/)]) {
    if (piece.length < MIN_SECRET_PIECE || piece.toLowerCase() === AUTH_SCHEME.toLowerCase()) continue;
    if (!pieces.includes(piece)) pieces.push(piece);
  }
  // Longest first, so the whole value is replaced before its parts.
  pieces.sort((a, b) => b.length - a.length);
  if (remembered.size >= MAX_REMEMBERED) remembered.clear();
  remembered.set(value, pieces);
  return pieces;
}

/**
 * Replaces the Authorization value, and its credential part on its own, wherever it appears in
 * `text`: error messages and response snippets of a receiver that echoes its request end up in
 * the attempt log.
 *
 * @example
 * ```ts
 * redactSecrets({ authorization: 'Bearer k3y-abcdef' }, 'echo: k3y-abcdef'); // 'echo: [redacted]'
 * ```
 */
export function redactSecrets(headers: Readonly<Record<string, string>>, text: string): string {
  if (text === '') return text;
  const authorization = authorizationOf(headers);
  if (authorization === undefined) return text;
  let result = text;
  for (const secret of piecesOf(authorization)) {
    if (result.includes(secret)) result = result.replaceAll(secret, '[redacted]');
  }
  return result;
}
