import { randomBytes } from 'node:crypto';

/** A schema name no other test file or package uses, so suites never collide. */
export function uniqueSchema(label: string): string {
  return `kyc_de_${label}_${randomBytes(4).toString('hex')}`;
}
