import { defineConfig } from 'tsup';

export default defineConfig({
  // `service-api` and `webhook-reader` are entries of their own so that a client or a receiver
  // importing only them gets no classic zod: a bundler cannot drop the schemas' top-level calls
  // from a file that also holds what it needs.
  entry: ['src/index.ts', 'src/service-api.ts', 'src/webhook-reader.ts'],
  format: ['esm', 'cjs'],
  // tsup's declaration build sets `baseUrl`, which TypeScript 6 deprecates.
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
