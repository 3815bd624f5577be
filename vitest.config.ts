import { existsSync, readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

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

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@kyc/source'] } },
  test: {
    projects: projects.map((root) => ({
      extends: true,
      test: {
        name: root.split('/')[1] ?? root,
        root,
        include: ['src/**/*.test.ts', 'test/**/*.test.ts', '*.test.ts', 'app/**/*.test.ts'],
      },
    })),
    testTimeout: 20_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
