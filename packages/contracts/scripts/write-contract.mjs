// Writes the machine-readable contract generated from the zod schemas:
//   node scripts/write-contract.mjs <dir>  →  <dir>/openapi.json and <dir>/schemas/<name>.json
// `pnpm build` writes it into dist/ (from the fresh build); `pnpm contract:docs` into
// docs/contract/ (from the sources, under tsx with the @kyc/source condition). The package
// imports itself, so either way the document comes from the same code.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildJsonSchemas, buildOpenApiDocument } from '@kyc/contracts/openapi';

const target = process.argv[2];
if (!target) {
  console.error('usage: node scripts/write-contract.mjs <output directory>');
  process.exit(2);
}
const dir = resolve(target);
const json = (value) => `${JSON.stringify(value, null, 2)}\n`;

mkdirSync(join(dir, 'schemas'), { recursive: true });
// A schema that no longer exists must not linger beside the current ones.
for (const name of readdirSync(join(dir, 'schemas'))) {
  if (name.endsWith('.json')) rmSync(join(dir, 'schemas', name));
}
writeFileSync(join(dir, 'openapi.json'), json(buildOpenApiDocument()));
const schemas = buildJsonSchemas();
for (const [name, schema] of Object.entries(schemas)) writeFileSync(join(dir, 'schemas', `${name}.json`), json(schema));
console.log(`wrote ${join(dir, 'openapi.json')} and ${Object.keys(schemas).length} schemas`);
