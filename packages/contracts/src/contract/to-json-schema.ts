import type { ContractSchema } from './contract-schemas.js';
import { convertSchema, type JsonSchema } from './convert-schema.js';

/** The dialect of every generated schema, and of the OpenAPI document's schemas. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * One wire format as a standalone JSON Schema 2020-12 document, with the contract's title,
 * description and examples on top of zod's conversion.
 *
 * @example
 * toJsonSchema(CONTRACT_SCHEMAS[0]).title // 'Completion webhook, v1 shape'
 */
export function toJsonSchema(entry: ContractSchema): JsonSchema {
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: entry.title,
    description: entry.description,
    ...convertSchema(entry.schema, entry.io),
    // Frozen fixtures; a copy keeps the output a plain JSON value.
    examples: structuredClone([...entry.examples]),
  };
}
