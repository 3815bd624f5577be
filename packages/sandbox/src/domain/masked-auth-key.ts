/** The last four characters of an Auth Key: all the sandbox ever keeps or shows of it. */
export const authKeyHint = (key: string | undefined): string | undefined =>
  key === undefined ? undefined : key.slice(-4);

/**
 * All the sandbox ever shows of an Auth Key, in the portal and the CLI alike: a mask and the
 * key's last four characters, so a person can tell which key is meant and nobody can use it.
 */
export function maskedAuthKey(key: string): string {
  return `••••${authKeyHint(key)}`;
}
