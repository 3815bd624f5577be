import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { publicPackages, ROOT } from '../src/workspace.ts';

interface PublishSummary {
  readonly name: string;
  readonly version: string;
  readonly files: readonly { readonly path: string }[];
}

// What `changeset publish` does on release day, minus the upload: pnpm picks the packages that
// are not private, packs each with its publishConfig, and would send them. Without their
// `prepublishOnly` build (`--ignore-scripts`): `pnpm test` built them already, and a build here
// empties each dist/ for seconds while the tests running beside this one read it.
it('`pnpm publish -r --dry-run` would publish the five public packages, each with its LICENSE', () => {
  const output = execFileSync('pnpm', ['publish', '-r', '--dry-run', '--no-git-checks', '--ignore-scripts', '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const summaries = JSON.parse(output) as PublishSummary[];
  const expected = publicPackages().map((pkg) => `${pkg.name}@${pkg.manifest.version}`);
  expect(summaries.map((summary) => `${summary.name}@${summary.version}`).sort()).toEqual(expected.sort());
  for (const summary of summaries) {
    const paths = summary.files.map((file) => file.path);
    expect(paths, summary.name).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
    expect(paths.filter((path) => path.startsWith('dist/')).length, summary.name).toBeGreaterThan(0);
  }
});
