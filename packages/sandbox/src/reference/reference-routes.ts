/// <reference path="../types/swagger-ui-dist.d.ts" />
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildJsonSchemas, buildOpenApiDocument } from '@kyc/contracts/openapi';
import { Hono } from 'hono';
import swaggerUiPath from 'swagger-ui-dist/absolute-path.js';
import { REFERENCE_PATHS } from './reference-paths.js';

// Swagger UI renders the document; its two files are served from the installed package, so
// the page needs nothing from another origin. The validator badge would call
// validator.swagger.io: it is off.
const ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'favicon.png': { file: 'favicon-32x32.png', type: 'image/png' },
};

const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(REFERENCE_PATHS.document)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  defaultModelsExpandDepth: 1,
  supportedSubmitMethods: ['get', 'post'],
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>KYC service API reference (sandbox)</title>
<link rel="icon" type="image/png" href="${REFERENCE_PATHS.assets}/favicon.png">
<link rel="stylesheet" href="${REFERENCE_PATHS.assets}/swagger-ui.css">
</head>
<body>
<p style="font-family: sans-serif; margin: 1em 2em">
The contract of this sandbox: <a href="${REFERENCE_PATHS.document}">openapi.json</a> (OpenAPI 3.1) and
<a href="${REFERENCE_PATHS.schemas}/webhook.json">schemas/webhook.json</a> (JSON Schema 2020-12), generated from <code>@kyc/contracts</code>.
</p>
<div id="swagger-ui"></div>
<script src="${REFERENCE_PATHS.assets}/swagger-ui-bundle.js"></script>
<script src="${REFERENCE_PATHS.assets}/init.js"></script>
</body>
</html>
`;

/**
 * Public routes with the machine-readable contract: `/openapi.json` (with this sandbox as its
 * first server, so "Try it out" and generated clients reach it), `/schemas/<name>.json`, and
 * `/api-reference`, a page rendering the document with Swagger UI from local files.
 */
export function referenceRoutes(): Hono {
  const app = new Hono();
  const document = buildOpenApiDocument();
  const schemas = buildJsonSchemas();
  const files = new Map<string, Promise<Uint8Array>>();

  app.get(REFERENCE_PATHS.document, (c) => {
    const servers = Array.isArray(document.servers) ? document.servers : [];
    const origin = new URL(c.req.url).origin;
    return c.json({ ...document, servers: [{ url: origin, description: 'This sandbox.' }, ...servers] });
  });

  app.get(`${REFERENCE_PATHS.schemas}/:file`, (c) => {
    const name = c.req.param('file').replace(/\.json$/, '');
    const schema = Object.hasOwn(schemas, name) ? schemas[name] : undefined;
    return schema ? c.json(schema) : c.text('No such schema.', 404);
  });

  app.get(REFERENCE_PATHS.page, (c) => c.html(PAGE));
  app.get(`${REFERENCE_PATHS.assets}/init.js`, (c) =>
    c.body(INIT_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8' }),
  );
  app.get(`${REFERENCE_PATHS.assets}/:file`, async (c) => {
    const name = c.req.param('file');
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) return c.text('Not found.', 404);
    let bytes = files.get(asset.file);
    if (!bytes) {
      bytes = readFile(join(swaggerUiPath(), asset.file));
      files.set(asset.file, bytes);
    }
    return c.body(new Uint8Array(await bytes), 200, { 'content-type': asset.type });
  });
  return app;
}
