import { fileURLToPath } from 'node:url';
import { bundlerWarnings } from '@kyc/test-support/bundler-warnings';
import { describe, expect, it } from 'vitest';

// A customer's bundler must not warn about the receiver: the optional `import()` of
// `@opentelemetry/api` once made webpack print "Critical dependency: the request of a dependency
// is an expression" (the Next.js example's `next build` checks webpack). esbuild (as wrangler runs
// it) and Vite, build and dev server, on the published build of every edge entry.
const packageRoot = fileURLToPath(new URL('..', import.meta.url));

describe('bundlers say nothing about the edge entries', () => {
  it('esbuild, vite build and the Vite dev server give no warning', async () => {
    const source = [
      "export * from '@kyc/webhook-receiver';",
      "export * as audit from '@kyc/webhook-receiver/audit';",
      "export * as cloudflare from '@kyc/webhook-receiver/cloudflare';",
      "export * as lambda from '@kyc/webhook-receiver/aws-lambda';",
      "export * as testing from '@kyc/webhook-receiver/testing';",
    ].join('\n');
    expect(await bundlerWarnings(source, packageRoot)).toEqual({ esbuild: [], viteBuild: [], viteDev: [] });
  }, 60_000);
});
