import { defineConfig } from 'vitest/config';

// Run by `pnpm run test:release` after `pnpm build`: the checks read the built packages.
export default defineConfig({
  test: {
    name: 'release-checks',
    root: import.meta.dirname,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The checks wait on child processes (API Extractor, npm pack, pnpm publish --dry-run, installs):
    // three files at a time, where the default on two cores (cores − 1) ran one.
    maxWorkers: 3,
    testTimeout: 120_000,
    hookTimeout: 300_000,
    reporters: ['default'],
  },
});
