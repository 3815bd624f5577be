import { defineConfig, type Options } from 'tsup';

const common: Options = {
  entry: ['src/index.ts'],
  // tsup's declaration build sets `baseUrl`, which TypeScript 6 deprecates.
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  sourcemap: true,
  // Both builds run in parallel; the build script empties dist first instead.
  clean: false,
  target: 'es2022',
};

export default defineConfig([
  { ...common, format: ['esm'] },
  // ky ships ESM only. Through require(esm) its namespace reaches CJS without the `__esModule`
  // marker, so the interop helper hands back the namespace instead of ky itself; bundling ky
  // into the CJS build avoids the mismatch (the ESM build keeps it a normal dependency).
  { ...common, format: ['cjs'], noExternal: ['ky'] },
]);
