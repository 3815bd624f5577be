import { fileURLToPath } from 'node:url';
import { bundlerWarnings } from '@kyc/test-support/bundler-warnings';
import { describe, expect, it } from 'vitest';

// A customer's bundler must not warn about the client: the optional `import()` of
// `@opentelemetry/api` once made webpack print "Critical dependency: the request of a dependency
// is an expression". esbuild (as wrangler runs it) and Vite, build and dev server, on the
// published build.
const packageRoot = fileURLToPath(new URL('..', import.meta.url));

describe('bundlers say nothing about the client', () => {
  it('esbuild, vite build and the Vite dev server give no warning', async () => {
    expect(await bundlerWarnings("export * from '@kyc/client';", packageRoot)).toEqual({
      esbuild: [],
      viteBuild: [],
      viteDev: [],
    });
  }, 60_000);
});
