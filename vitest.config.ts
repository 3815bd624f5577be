import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources through the `@kyc/source` export
// condition, so tests never run against a stale build.
const conditions = ['@kyc/source', 'module', 'node', 'development|production'];

const projects = ['packages', 'examples'].flatMap((folder) =>
  existsSync(folder)
    ? readdirSync(folder)
        .map((name) => `${folder}/${name}`)
        .filter((dir) => existsSync(`${dir}/package.json`))
    : [],
);

// The files whose verdict is a timing (tools/test-pipeline/timing-tests.json says why): the test
// pipeline runs the others with `KYC_TIMING_TESTS=skip`, then these alone with `=only`. Unset,
// `vitest run` runs everything.
const timingMode = process.env.KYC_TIMING_TESTS;
if (timingMode !== undefined && timingMode !== 'skip' && timingMode !== 'only') {
  throw new Error(`KYC_TIMING_TESTS=${timingMode}: skip, only, or unset`);
}
const timingFiles: string[] = JSON.parse(readFileSync('tools/test-pipeline/timing-tests.json', 'utf8')).files;
const timingIn = (root: string) =>
  timingFiles.filter((file) => file.startsWith(`${root}/`)).map((file) => file.slice(root.length + 1));
const include = ['src/**/*.test.ts', 'test/**/*.test.ts', '*.test.ts', 'app/**/*.test.ts'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@kyc/source'] } },
  test: {
    projects: projects
      .filter((root) => timingMode !== 'only' || timingIn(root).length > 0)
      .map((root) => ({
        extends: true,
        test: {
          name: root.split('/')[1] ?? root,
          root,
          include: timingMode === 'only' ? timingIn(root) : include,
          exclude: timingMode === 'skip' ? [...configDefaults.exclude, ...timingIn(root)] : configDefaults.exclude,
        },
      })),
    // Most test time is waiting (leases, retry intervals, child processes, browsers), not CPU:
    // four files at a time keep two cores busy where the default (cores − 1) ran one at a time.
    // Files that share a database keep apart by a schema, table or key prefix of their own.
    // The timing files run one at a time.
    maxWorkers: timingMode === 'only' ? 1 : 4,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
