/**
 * All the sandbox ever shows of an Auth Key, in the portal and the CLI alike: a mask and the
 * key's last four characters, so a person can tell which key is meant and nobody can use it.
 */
export function maskedAuthKey(key: string): string {
  return `••••${key.slice(-4)}`;
}
