import type { UserConfig } from 'tsdown';

type OutputOptions = Exclude<NonNullable<UserConfig['outputOptions']>, (...args: never[]) => unknown>;

/**
 * Puts shared chunks in `dist/chunks/`, apart from the entries at the top of `dist/`.
 *
 * Why: with `hash: false` an entry and a shared chunk render from the same `[name]` template, and
 * rolldown names a shared chunk after an entry that reaches it. Two outputs then want one file
 * name and rolldown numbers one of them (`webhook-reader2`). In the JavaScript build the entry
 * kept its name, but in the declaration build (rolldown-plugin-dts emits the `.d.ts` entries as
 * extra chunks) the shared chunk took it: `dist/webhook-reader.d.ts`, where the exports map
 * points, held a chunk of one-letter names. A separate folder makes that collision impossible,
 * whatever the chunk is called; the packed-consumer test in tools/release-checks guards it.
 */
export function chunksInTheirOwnFolder(options: OutputOptions): OutputOptions {
  const template = options.chunkFileNames ?? '[name].js';
  return {
    ...options,
    chunkFileNames: typeof template === 'function' ? (chunk) => `chunks/${template(chunk)}` : `chunks/${template}`,
  };
}

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
  outputOptions: chunksInTheirOwnFolder,
} satisfies UserConfig;
