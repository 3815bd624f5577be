import type * as z from 'zod/mini';

/**
 * A short English message for a zod issue, passed as the error map of the response parse.
 * `zod/mini` ships no messages (every issue would read "Invalid input") and its English locale
 * costs about 1 KB gzip in a bundle; this says what was expected in a few bytes. It never
 * repeats the received value, which may be personal data: only its type.
 *
 * @example
 * sessionDetailsMiniSchema.safeParse(body, { error: describeIssue })
 * // issues like { path: ['state'], message: 'expected one of IN_PROGRESS, FINISHED' }
 */
export function describeIssue(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}, got ${typeName(issue.input)}`;
    case 'too_small':
      return `expected ${issue.origin === 'string' ? 'length' : 'value'} >= ${issue.minimum}`;
    case 'too_big':
      return `expected ${issue.origin === 'string' ? 'length' : 'value'} <= ${issue.maximum}`;
    case 'invalid_format':
      return `expected a valid ${issue.format}`;
    case 'invalid_value':
      return `expected one of ${issue.values.join(', ')}`;
    case 'invalid_union':
      return 'matches none of the allowed forms';
    default:
      return `invalid (${issue.code})`;
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}
