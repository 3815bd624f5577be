import { describe, expect, it } from 'vitest';
import { manifestFindings, tarballFindings } from './tarball-rules.ts';
import type { Manifest } from './workspace.ts';

const manifest: Manifest = {
  name: '@kyc/example',
  version: '1.0.0',
  exports: {
    '.': { '@kyc/source': './src/index.ts', import: { types: './dist/index.d.ts', default: './dist/index.js' } },
    './schemas/*.json': './dist/schemas/*.json',
  },
  bin: { 'kyc-example': './dist/cli.js' },
};

const goodFiles = [
  'LICENSE',
  'README.md',
  'package.json',
  'dist/index.js',
  'dist/index.js.map',
  'dist/index.d.ts',
  'dist/cli.js',
  'dist/schemas/webhook.json',
  'src/index.ts',
];

const texts: Record<string, string> = {
  'dist/index.js': 'export {};\n//# sourceMappingURL=index.js.map\n',
  'dist/index.js.map': JSON.stringify({ version: 3, sources: ['../src/index.ts'], mappings: '' }),
  'dist/cli.js': '#!/usr/bin/env node\n',
};
const read =
  (overrides: Record<string, string> = {}) =>
  (path: string) =>
    overrides[path] ?? texts[path] ?? '';

describe('tarballFindings', () => {
  it('accepts a tarball with LICENSE, README, dist, every export and bin, and maps that stay inside', () => {
    expect(tarballFindings(manifest, goodFiles, read())).toEqual([]);
  });

  it('names each missing required file', () => {
    const files = goodFiles.filter((file) => file !== 'LICENSE' && file !== 'README.md');
    expect(tarballFindings(manifest, files, read())).toEqual(['LICENSE is missing', 'README.md is missing']);
  });

  it('fails without dist/, and names the exports and bin it leaves dangling', () => {
    const findings = tarballFindings(manifest, ['LICENSE', 'README.md', 'package.json', 'src/index.ts'], read());
    expect(findings).toContain('dist/ is missing (run `pnpm build` first)');
    expect(findings).toContain('exports target dist/index.js is not in the tarball');
    expect(findings).toContain('exports target dist/schemas/*.json is not in the tarball');
    expect(findings).toContain('bin kyc-example (./dist/cli.js) is not in the tarball');
  });

  it.each([
    ['test/server.test.ts', 'a test folder'],
    ['src/receiver.test.ts', 'a test file'],
    ['src/__fixtures__/body.json', 'a test folder'],
    ['fixtures/body.json', 'a test folder'],
    ['bench/run.mjs', 'a bench'],
    ['src/parse.bench.ts', 'a bench'],
    ['.tmp/packed/x.tgz', 'scratch output'],
    ['dist/.tmp/leftover.js', 'scratch output'],
    ['tsconfig.tsbuildinfo', 'a build cache'],
    ['.env.local', 'an environment file'],
  ])('refuses %s (%s)', (file, what) => {
    expect(tarballFindings(manifest, [...goodFiles, file], read())).toEqual([
      `${file} is ${what} and must not be published`,
    ]);
  });

  it('keeps public modules whose names merely resemble test words (src/testing/, src/fixtures.ts)', () => {
    const files = [...goodFiles, 'src/testing/create-test-request.ts', 'src/fixtures.ts', 'dist/testing.js'];
    const reached = read({
      'src/index.ts': "export * from './testing/create-test-request.ts';\nexport { sample } from './fixtures.js';\n",
      'dist/index.js': "import './testing.js';\n//# sourceMappingURL=index.js.map\n",
    });
    expect(tarballFindings(manifest, files, reached)).toEqual([]);
  });

  it('refuses a file that no export or bin reaches (a demo beside the sources), and follows every kind of import', () => {
    const files = [...goodFiles, 'src/demo.ts', 'src/demo/timeline.ts', 'src/a.ts', 'src/b.d.ts', 'dist/chunks/c.d.ts'];
    const texts = read({
      'src/demo.ts': "import { timeline } from './demo/timeline.ts';\n",
      'src/index.ts': '/// <reference path="./b.d.ts" />\nexport type { A } from \'./a\';\n',
      'dist/index.d.ts': 'import { t as T } from "./chunks/c.js";\n',
    });
    expect(tarballFindings(manifest, files, texts)).toEqual([
      'src/demo.ts is reached by no export or bin and must not be published',
      'src/demo/timeline.ts is reached by no export or bin and must not be published',
    ]);
  });

  it('refuses a source map that points outside the package, even with its content embedded', () => {
    const map = JSON.stringify({
      version: 3,
      sources: ['../src/index.ts', '../../../node_modules/.pnpm/ky@2.1.0/node_modules/ky/distribution/index.js'],
      sourcesContent: ['', ''],
      mappings: '',
    });
    expect(tarballFindings(manifest, goodFiles, read({ 'dist/index.js.map': map }))).toEqual([
      'dist/index.js.map points outside the package: ../../../node_modules/.pnpm/ky@2.1.0/node_modules/ky/distribution/index.js',
    ]);
  });

  it('refuses absolute and URL sources', () => {
    const map = JSON.stringify({ version: 3, sources: ['/home/ci/src/index.ts', 'file:///src/a.ts'], mappings: '' });
    expect(tarballFindings(manifest, goodFiles, read({ 'dist/index.js.map': map }))).toHaveLength(2);
  });

  it('accepts a source that is not shipped when the map embeds it, and refuses it otherwise', () => {
    const embedded = JSON.stringify({ version: 3, sources: ['../src/gone.ts'], sourcesContent: ['x'], mappings: '' });
    const dangling = JSON.stringify({ version: 3, sources: ['../src/gone.ts'], mappings: '' });
    expect(tarballFindings(manifest, goodFiles, read({ 'dist/index.js.map': embedded }))).toEqual([]);
    expect(tarballFindings(manifest, goodFiles, read({ 'dist/index.js.map': dangling }))).toEqual([
      'dist/index.js.map names ../src/gone.ts, which is neither in the tarball nor embedded (sourcesContent)',
    ]);
  });

  it('refuses a sourceMappingURL to a map that is not shipped', () => {
    const files = goodFiles.filter((file) => file !== 'dist/index.js.map');
    expect(tarballFindings(manifest, files, read())).toEqual([
      'dist/index.js names the source map dist/index.js.map, which is not in the tarball',
    ]);
  });
});

describe('manifestFindings', () => {
  const root: Manifest = {
    name: 'root',
    version: '0.0.0',
    repository: { url: 'git+https://github.com/o/r.git' },
    engines: { node: '>=22', pnpm: '>=12' },
  };
  const complete: Manifest = {
    name: '@kyc/example',
    version: '1.0.0',
    description: 'An example.',
    license: 'MIT',
    keywords: ['kyc'],
    homepage: 'https://github.com/o/r/tree/main/packages/example#readme',
    bugs: { url: 'https://github.com/o/r/issues' },
    repository: { type: 'git', url: 'git+https://github.com/o/r.git', directory: 'packages/example' },
    publishConfig: { access: 'public', provenance: true },
    files: ['dist', 'CHANGELOG.md'],
    engines: { node: '>=22' },
    dependencies: { zod: '^4' },
  };

  it('accepts complete metadata', () => {
    expect(manifestFindings(complete, 'example', root, new Set(['@kyc/test-support']))).toEqual([]);
  });

  it('names every gap', () => {
    const bare: Manifest = {
      name: '@kyc/example',
      version: '1.0.0',
      license: 'ISC',
      dependencies: { '@kyc/test-support': 'workspace:*' },
    };
    expect(manifestFindings(bare, 'example', root, new Set(['@kyc/test-support']))).toEqual([
      'license is ISC, not MIT',
      'keywords are missing',
      'description is missing',
      'repository.url is undefined, not git+https://github.com/o/r.git',
      'repository.directory is undefined, not packages/example',
      'homepage is missing',
      'bugs.url is missing',
      'files does not name CHANGELOG.md',
      'publishConfig.access is not "public"',
      'publishConfig.provenance is not true',
      "engines.node is undefined, not the root's >=22",
      'dependencies names @kyc/test-support, which is never published',
    ]);
  });
});
