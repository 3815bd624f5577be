import { defineConfig } from 'vitest/config';

// Run by `pnpm run test:docs` after `pnpm run docs` has built the site into dist/.
export default defineConfig({
  test: {
    name: 'docs-site',
    root: import.meta.dirname,
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
