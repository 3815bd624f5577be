import { existsSync, readFileSync } from 'node:fs';

/** Pieces of a secret this long or longer are looked for: no 12 characters in a row may leak. */
export const SECRET_PIECE_LENGTH = 12;

/** Where a secret, or a piece of one, was found. */
export interface SecretFinding {
  readonly where: string;
  /** Which secret (its name in the map given), never the secret itself. */
  readonly secret: string;
  readonly offset: number;
}

/**
 * Looks for every secret, whole or as any run of {@link SECRET_PIECE_LENGTH} characters of it,
 * in the bytes of each file (a missing file is skipped: a `-wal` that was truncated away holds
 * nothing), each text and each buffer. Returns what it found, named by the secrets' keys, so a failing test
 * names the file and the secret without printing it.
 *
 * @example
 * ```ts
 * expect(findSecrets({ files: [db, `${db}-wal`], texts: { logs: logs.join('\n') } }, { authKey })).toEqual([]);
 * ```
 */
export function findSecrets(
  sources: {
    readonly files?: readonly string[];
    readonly texts?: Readonly<Record<string, string>>;
    readonly buffers?: Readonly<Record<string, Uint8Array>>;
  },
  secrets: Readonly<Record<string, string>>,
): SecretFinding[] {
  const haystacks: [string, Buffer][] = [
    ...(sources.files ?? [])
      .filter((file) => existsSync(file))
      .map((file): [string, Buffer] => [file, readFileSync(file)]),
    ...Object.entries(sources.texts ?? {}).map(([name, text]): [string, Buffer] => [name, Buffer.from(text, 'utf8')]),
    ...Object.entries(sources.buffers ?? {}).map(([name, bytes]): [string, Buffer] => [name, Buffer.from(bytes)]),
  ];
  const findings: SecretFinding[] = [];
  for (const [name, secret] of Object.entries(secrets)) {
    if (secret.length < SECRET_PIECE_LENGTH) throw new Error(`findSecrets: ${name} is shorter than a piece`);
    const pieces = new Set<string>();
    for (let i = 0; i + SECRET_PIECE_LENGTH <= secret.length; i++) pieces.add(secret.slice(i, i + SECRET_PIECE_LENGTH));
    for (const [where, bytes] of haystacks) {
      for (const piece of pieces) {
        const offset = bytes.indexOf(piece);
        if (offset >= 0) {
          findings.push({ where, secret: name, offset });
          break;
        }
      }
    }
  }
  return findings;
}
