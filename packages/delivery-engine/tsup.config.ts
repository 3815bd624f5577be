import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/postgres.ts'],
  format: ['esm', 'cjs'],
  // tsup's declaration build sets `baseUrl`, which TypeScript 6 deprecates.
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
