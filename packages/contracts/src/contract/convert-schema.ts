import * as z from 'zod';

/** A JSON Schema (draft 2020-12) document or subschema. */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * A zod schema as a JSON Schema 2020-12 subschema (no `$schema`), converted by zod itself:
 * `io: 'output'` for what the service sends, `'input'` for what a caller sends.
 *
 * @example
 * convertSchema(sessionIdSchema, 'input') // { type: 'string', minLength: 1, maxLength: 256, … }
 */
export function convertSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as JsonSchema;
  return rest;
}
