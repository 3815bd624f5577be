import { defineConfig } from 'tsdown';
import { base } from '../../tsdown.base.ts';

export default defineConfig([
  { ...base, entry: ['src/index.ts'], format: ['esm'], platform: 'neutral' },
  // ky ships ESM only. Through require(esm) its namespace reaches CJS without the `__esModule`
  // marker, so the interop helper hands back the namespace instead of ky itself; bundling ky
  // into the CJS build avoids the mismatch (the ESM build keeps it a normal dependency).
  {
    ...base,
    entry: ['src/index.ts'],
    format: ['cjs'],
    clean: false,
    platform: 'neutral',
    deps: { alwaysBundle: ['ky'] },
    outputOptions: {
      // The bundled ky's map entries would name the workspace's pnpm store
      // (`../../../node_modules/.pnpm/ky@…`), a path outside the package; name them as an install
      // lays ky out instead. The map carries their text (`sourcesContent`), and debuggers skip them.
      sourcemapPathTransform: (source) =>
        source.replace(/^(?:\.\.\/)+node_modules\/\.pnpm\/[^/]+\/node_modules\//, '../node_modules/'),
      sourcemapIgnoreList: (source) => source.includes('/node_modules/'),
    },
  },
]);
