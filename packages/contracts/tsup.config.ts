import { defineConfig } from 'tsup';

export default defineConfig({
  // `service-api` is a separate entry so that a client importing only it gets no classic zod.
  entry: ['src/index.ts', 'src/service-api.ts'],
  format: ['esm', 'cjs'],
  // tsup's declaration build sets `baseUrl`, which TypeScript 6 deprecates.
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
