import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { installConsumer, packTarballs } from '../src/packed-consumer.ts';
import { publicPackages, ROOT } from '../src/workspace.ts';

// Outside a project that has the package, `npx <name>` fetches <name> from the registry: a bare
// unscoped name (`kyc-sandbox`, `kyc-audit`) that we never registered would run whoever's code
// was published under it. So the docs name the scoped package; this suite finds every npx line
// of the READMEs and docs, and runs the ones that work offline, as written, in a fresh project
// that installed the packed tarballs.

const tracked = execFileSync('git', ['ls-files', '*.md', 'packages/*/src/**', 'tools/*/src/**'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file !== '' && !file.endsWith('CHANGELOG.md'));
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const BARE_NPX = new RegExp(['np', 'x\\s+kyc-'].join(''));

/** Every documented command line that runs one of our CLIs through npx, as written. */
const documented = tracked
  .filter((file) => file.endsWith('.md'))
  .flatMap((file) =>
    text(file)
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => /^npx (@kyc\/sandbox|-p @kyc\/webhook-receiver kyc-audit)\b/.test(line))
      .map((line) => ({ file, line })),
  );
// What runs without a server, a database or a terminal: the usage of each CLI.
const offline = documented.filter(({ line }) => / --help$/.test(line));

it('no README, doc or source file runs a bare unscoped `kyc-…` name through npx', () => {
  const hits = tracked.flatMap((file) =>
    text(file)
      .split('\n')
      .flatMap((line, index) => (BARE_NPX.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
  );
  expect(hits).toEqual([]);
});

it('the scoped commands name a package whose bin is the documented one', () => {
  const bins = Object.fromEntries(publicPackages().map((pkg) => [pkg.name, Object.keys(pkg.manifest.bin ?? {})]));
  // `npx @kyc/sandbox` runs the package's bin only when it has exactly one.
  expect(bins['@kyc/sandbox']).toEqual(['kyc-sandbox']);
  expect(bins['@kyc/webhook-receiver']).toContain('kyc-audit');
  expect(documented.length).toBeGreaterThanOrEqual(10);
  expect(offline.map(({ line }) => line).sort()).toEqual(
    expect.arrayContaining(['npx -p @kyc/webhook-receiver kyc-audit --help', 'npx @kyc/sandbox --help']),
  );
});

const project = join(ROOT, '.tmp', 'release-checks', 'documented-commands', 'project');
beforeAll(() => {
  installConsumer(project, packTarballs(publicPackages(), join(project, '..', 'tarballs')));
}, 300_000);

it.each(offline)('$file: `$line` runs as written in a fresh project', ({ line }) => {
  const run = spawnSync('sh', ['-c', line], { cwd: project, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^Usage/);
});
