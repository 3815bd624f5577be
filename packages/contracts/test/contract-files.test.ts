import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildJsonSchemas, buildOpenApiDocument } from '../src/openapi.js';

// The contract is generated, never edited: the copies committed under docs/contract (what
// customers read and link to) and the files in the build (what the package ships) must be
// exactly what the zod schemas generate now.
const root = fileURLToPath(new URL('../../..', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));

function expected(): Map<string, string> {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const files = new Map([['openapi.json', json(buildOpenApiDocument())]]);
  for (const [name, schema] of Object.entries(buildJsonSchemas())) files.set(`schemas/${name}.json`, json(schema));
  return files;
}

function written(dir: string): Map<string, string> {
  const files = new Map([['openapi.json', readFileSync(join(dir, 'openapi.json'), 'utf8')]]);
  for (const name of readdirSync(join(dir, 'schemas')).sort())
    files.set(`schemas/${name}`, readFileSync(join(dir, 'schemas', name), 'utf8'));
  return files;
}

function stale(dir: string): string[] {
  const want = expected();
  const have = written(dir);
  const names = new Set([...want.keys(), ...have.keys()]);
  return [...names].filter((name) => want.get(name) !== have.get(name)).sort();
}

describe('the machine-readable contract files', () => {
  it('committed under docs/contract are what the schemas generate (else run `pnpm contract:docs`)', () => {
    expect(stale(join(root, 'docs', 'contract'))).toEqual([]);
  });

  it('in the build are what the schemas generate (run `pnpm build` first)', () => {
    expect(stale(join(packageDir, 'dist'))).toEqual([]);
  });
});
