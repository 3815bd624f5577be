import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The runtimes whose binaries come from the npm registry. */
export type RuntimeName = 'bun' | 'deno';

// Each launcher package (`bun`, `deno`) lists its platform builds as optionalDependencies and
// only copies the binary into place in a postinstall, which pnpm-workspace.yaml does not run
// (`allowBuilds`). The platform package itself holds the binary: we run that one.
const platformBinaries: Record<RuntimeName, () => { readonly pkg: string; readonly file: string }> = {
  bun: () => ({
    pkg: `@oven/bun-${process.platform}-${process.arch === 'arm64' ? 'aarch64' : process.arch}`,
    file: 'bin/bun',
  }),
  deno: () => ({
    pkg: `@deno/${process.platform}-${process.arch}${process.platform === 'linux' ? '-glibc' : ''}`,
    file: 'deno',
  }),
};

/**
 * The path of a runtime binary shipped by its npm package. Throws (never skips) when it is not
 * installed: every runtime we name is a test on that runtime.
 */
export function runtimeBinary(name: RuntimeName): string {
  const { pkg, file } = platformBinaries[name]();
  let path: string | undefined;
  try {
    const launcher = createRequire(require.resolve(`${name}/package.json`));
    path = join(dirname(launcher.resolve(`${pkg}/package.json`)), file);
  } catch {
    path = undefined;
  }
  if (path === undefined || !existsSync(path)) {
    throw new Error(
      `The ${name} binary is not installed: expected ${pkg} (an optional dependency of the '${name}' npm package) ` +
        'for this platform. Run `pnpm install` on linux-x64, or install that package.',
    );
  }
  return path;
}
