import type { UserConfig } from 'tsdown';

/**
 * What every published package's build shares: ESM and CommonJS side by side, with `.d.ts` and
 * `.d.cts` declarations emitted by TypeScript 7 (tsgo) through rolldown-plugin-dts.
 */
export const base = {
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  // `index.js` / `index.cjs` beside `"type": "module"`, the names the exports maps give.
  fixedExtension: false,
  hash: false,
} satisfies UserConfig;
