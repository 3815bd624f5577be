import { CONTRACT_SCHEMAS } from './contract-schemas.js';
import type { JsonSchema } from './convert-schema.js';
import { JSON_SCHEMA_DIALECT, toJsonSchema } from './to-json-schema.js';

const WEBHOOK_FILES = ['webhook-v1', 'webhook-status', 'webhook-combined'] as const;

/**
 * Every wire format as a standalone JSON Schema 2020-12 document, keyed by its file name below
 * `schemas/` (without `.json`): the six bodies, plus `webhook`, any completion webhook body
 * (`anyOf` the three shapes, each under `$defs`).
 *
 * @example
 * const schemas = buildJsonSchemas();
 * new Ajv2020().compile(schemas.webhook)(JSON.parse(body)); // true for every body the service sends
 */
export function buildJsonSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const entry of CONTRACT_SCHEMAS) schemas[entry.file] = toJsonSchema(entry);
  const defs: Record<string, JsonSchema> = {};
  for (const file of WEBHOOK_FILES) {
    const entry = CONTRACT_SCHEMAS.find((candidate) => candidate.file === file);
    if (!entry) throw new Error(`no contract schema ${file}`);
    const { $schema: _dialect, examples: _examples, ...schema } = toJsonSchema(entry);
    defs[entry.component] = schema;
  }
  schemas.webhook = {
    $schema: JSON_SCHEMA_DIALECT,
    title: 'Completion webhook',
    description:
      'Any completion webhook body the service sends: the v1 shape, the status shape, or one body with both groups (which matches all three).',
    anyOf: Object.keys(defs).map((name) => ({ $ref: `#/$defs/${name}` })),
    $defs: defs,
  };
  return schemas;
}
