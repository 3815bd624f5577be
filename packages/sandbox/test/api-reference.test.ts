import { HEADERS } from '@kyc/contracts';
import { buildJsonSchemas, buildOpenApiDocument } from '@kyc/contracts/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox } from './helpers.js';

let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

describe('the machine-readable contract, served by the sandbox', () => {
  it('serves /openapi.json without credentials: the published document, with this sandbox as its first server', async () => {
    const answer = await fetch(`${sandbox.url}/openapi.json`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get(HEADERS.contentType)).toMatch(/^application\/json/);
    const served = (await answer.json()) as { servers: { url: string }[] };
    const published = buildOpenApiDocument() as { servers: { url: string }[] };
    expect(served.servers[0]?.url).toBe(sandbox.url);
    expect({ ...served, servers: served.servers.slice(1) }).toEqual(published);
  });

  it('serves each JSON Schema under /schemas, and 404 for a name it does not have', async () => {
    for (const [name, schema] of Object.entries(buildJsonSchemas())) {
      const answer = await fetch(`${sandbox.url}/schemas/${name}.json`);
      expect(answer.status, name).toBe(200);
      expect(await answer.json()).toEqual(schema);
    }
    expect((await fetch(`${sandbox.url}/schemas/__proto__.json`)).status).toBe(404);
  });

  it('serves the reference page and its assets from this origin only, under a CSP that allows no other', async () => {
    const page = await fetch(`${sandbox.url}/api-reference`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/https?:|\*/);
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(sources.length).toBeGreaterThan(2);
    for (const source of sources) expect(source, source).toMatch(/^\//);
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js', 'favicon.png']) {
      const answer = await fetch(`${sandbox.url}/api-reference/assets/${asset}`);
      expect(answer.status, asset).toBe(200);
      expect((await answer.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
    }
    expect((await fetch(`${sandbox.url}/api-reference/assets/package.json`)).status).toBe(404);
    expect((await fetch(`${sandbox.url}/api-reference/assets/..%2Fpackage.json`)).status).toBe(404);
  });
});
