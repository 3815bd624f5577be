import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// The entries that promise to run on every runtime (Workers, Deno, Bun, browsers' bundlers), as
// a user's bundler gets them: from the published build (`pnpm build` first). Node built-ins are
// left external, not failing the build, so that the test names each one that slipped in.
const edgeEntries = [
  '@kyc/webhook-receiver',
  '@kyc/webhook-receiver/audit',
  '@kyc/webhook-receiver/cloudflare',
  '@kyc/webhook-receiver/aws-lambda',
  '@kyc/webhook-receiver/testing',
];
const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** The Node built-ins a bundle of `contents` imports, and the Node-only globals its code names. */
async function nodeDependencies(contents: string): Promise<{ imports: string[]; globals: string[] }> {
  const result = await build({
    stdin: { contents, resolveDir: packageRoot, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['import'],
    external: [...builtins],
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const imports = Object.values(result.metafile.outputs)
    .flatMap((output) => output.imports.map((entry) => entry.path))
    .filter((path) => builtins.has(path) || builtins.has(path.split('/')[0] ?? ''));
  const text = result.outputFiles.map((file) => file.text).join('\n');
  const globals = [...text.matchAll(/\b(Buffer|process|require|__dirname|setImmediate)\b(?=\s*[.(])/g)].map(
    (m) => m[1] ?? '',
  );
  return { imports: [...new Set(imports)], globals: [...new Set(globals)] };
}

describe('the edge entries, bundled from the published build, use nothing of Node', () => {
  it.each(edgeEntries)('%s imports no node: built-in and names no Node global', async (entry) => {
    expect(await nodeDependencies(`export * from '${entry}';`)).toEqual({ imports: [], globals: [] });
  });

  it('would catch one: a bundle importing node:crypto, fs and Buffer is named', async () => {
    const found = await nodeDependencies(
      "import { createHash } from 'node:crypto'; import { readFileSync } from 'fs';\n" +
        "export const f = () => [createHash, readFileSync, Buffer.from('x')];",
    );
    expect(found).toEqual({ imports: ['node:crypto', 'fs'], globals: ['Buffer'] });
  });
});
