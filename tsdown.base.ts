import type { Rolldown, UserConfig } from 'tsdown';

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
 * Removes, from the bundled declaration files only, an import whose binding nothing in the file
 * uses. Why: rolldown-plugin-dts tree-shakes the declarations that used such a binding but keeps
 * their import; `@kyc/sandbox`'s index.d.ts kept `import Database from "better-sqlite3"` with no
 * use of `Database`, so a consumer with `skipLibCheck: false` needed @types/better-sqlite3, a
 * devDependency. An unused import in a .d.ts declares nothing, so dropping it changes no type
 * (no source file imports a package for its side effects).
 */
export function dropUnusedDeclarationImports(): Rolldown.Plugin {
  const declarationFile = /\.d\.[cm]?ts$/;
  const defaultOrNamespace = /^import (?:\* as )?([\w$]+) from "[^"]+";\n/gm;
  // What is left of such an import in the `.d.cts` pass: `import "better-sqlite3";`. TypeScript
  // resolves side-effect imports too (noUncheckedSideEffectImports), and ours are never meant.
  const bare = /^import "[^".][^"]*";\n/gm;
  return {
    name: 'kyc:drop-unused-declaration-imports',
    // generateBundle, after every plugin's renderChunk: in the `.d.cts` pass rolldown-plugin-dts
    // turns its fake JavaScript into declarations after ours would have run.
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !declarationFile.test(chunk.fileName)) continue;
        const code = chunk.code;
        chunk.code = code
          .replace(defaultOrNamespace, (line, binding: string) => {
            const uses = code
              .split(line)
              .join('')
              .match(new RegExp(`(?<![\\w$.])${binding.replaceAll('$', '\\$')}(?![\\w$])`));
            return uses === null ? '' : line;
          })
          .replace(bare, '');
      }
    },
  };
}

/**
 * Leaves out of the JavaScript source maps the text of the package's own sources, keeping only
 * the text of code bundled from a dependency. Why (the rule is in CONTRIBUTING.md, "What a
 * package ships"): the maps name `../src/*.ts`, and those files ship in the tarball (the
 * `@kyc/source` export condition names them), so embedding them again only doubled every map;
 * code bundled from node_modules (ky in the client's CommonJS build) ships nowhere else, so its
 * text stays in the map for a debugger to show.
 */
export function embedOnlyBundledDependencies(): Rolldown.Plugin {
  const strip = (map: { sources: (string | null)[]; sourcesContent?: (string | null)[] }): void => {
    if (map.sourcesContent === undefined) return;
    map.sourcesContent = map.sources.map((source, index) =>
      source?.includes('node_modules/') ? (map.sourcesContent?.[index] ?? null) : null,
    );
    if (map.sourcesContent.every((content) => content === null)) delete map.sourcesContent;
  };
  return {
    name: 'kyc:embed-only-bundled-dependencies',
    generateBundle(_options, bundle) {
      for (const output of Object.values(bundle)) {
        if (output.type === 'chunk' && output.map) strip(output.map);
        else if (output.type === 'asset' && output.fileName.endsWith('.map') && typeof output.source === 'string') {
          const map = JSON.parse(output.source);
          strip(map);
          output.source = JSON.stringify(map);
        }
      }
    },
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
  // Through inputOptions, not `plugins`: tsdown leaves user plugins out of its `.d.cts` pass.
  inputOptions: (options) => ({
    ...options,
    plugins: [options.plugins, dropUnusedDeclarationImports(), embedOnlyBundledDependencies()],
  }),
} satisfies UserConfig;
