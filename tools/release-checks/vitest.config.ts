import { defineConfig } from 'vitest/config';

// Run by `pnpm run test:release` after `pnpm build`: the checks read the built packages.
export default defineConfig({
  test: {
    name: 'release-checks',
    root: import.meta.dirname,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    reporters: ['default'],
  },
});
