/**
 * `@kyc/contracts/openapi`: the machine-readable contract, generated from the zod schemas. The
 * build writes the same documents as files: `@kyc/contracts/openapi.json` and
 * `@kyc/contracts/schemas/<name>.json`.
 *
 * @example
 * import { buildJsonSchemas, buildOpenApiDocument } from '@kyc/contracts/openapi';
 * const openapi = buildOpenApiDocument();
 * const { webhook } = buildJsonSchemas();
 *
 * @packageDocumentation
 */
export { buildJsonSchemas } from './contract/build-json-schemas.js';
export { buildOpenApiDocument } from './contract/build-openapi-document.js';
export { CONTRACT_SCHEMAS, type ContractSchema } from './contract/contract-schemas.js';
export type { JsonSchema } from './contract/convert-schema.js';
export { JSON_SCHEMA_DIALECT } from './contract/to-json-schema.js';
