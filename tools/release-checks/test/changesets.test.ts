import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { type Manifest, privatePackageNames, publicPackages, ROOT, readManifest } from '../src/workspace.ts';

// `changeset version` as the release workflow runs it, in a scratch copy of the workspace's
// manifests and changesets (never the checkout itself): every public package gets its next
// version and a CHANGELOG.md carrying its changesets; private packages are left alone.

const scratch = join(ROOT, '.tmp', 'release-checks', 'changesets');
const changeset = join(ROOT, 'node_modules', '.bin', 'changeset');
const workspaceFolders = ['packages', 'examples', 'tools'];
const packages = publicPackages();

interface Pending {
  readonly summary: string;
  readonly packages: readonly string[];
}

function pendingChangesets(): Pending[] {
  const folder = join(ROOT, '.changeset');
  return readdirSync(folder)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .map((name) => {
      const text = readFileSync(join(folder, name), 'utf8');
      const [, front = '', body = ''] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text) ?? [];
      const names = [...front.matchAll(/^['"]?(@kyc\/[\w-]+)['"]?:/gm)].map((match) => match[1] ?? '');
      return { summary: body.trim(), packages: names };
    });
}

const pending = pendingChangesets();
// Right after a release nothing is pending; the version step must work all the same.
const scratchChangeset: Pending = {
  summary: 'A scratch change to exercise the version step.',
  packages: packages.map((pkg) => pkg.name),
};
const released = pending.length > 0 ? pending : [scratchChangeset];
const versionsBefore = new Map(packages.map((pkg) => [pkg.folder, pkg.manifest.version]));
let output = '';

beforeAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  for (const file of ['package.json', 'pnpm-workspace.yaml']) cpSync(join(ROOT, file), join(scratch, file));
  cpSync(join(ROOT, '.changeset'), join(scratch, '.changeset'), { recursive: true });
  if (pending.length === 0) {
    const front = scratchChangeset.packages.map((name) => `'${name}': patch`).join('\n');
    writeFileSync(join(scratch, '.changeset', 'scratch.md'), `---\n${front}\n---\n\n${scratchChangeset.summary}\n`);
  }
  for (const folder of workspaceFolders) {
    for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
      const manifest = join(ROOT, folder, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(manifest)) continue;
      mkdirSync(join(scratch, folder, entry.name), { recursive: true });
      cpSync(manifest, join(scratch, folder, entry.name, 'package.json'));
    }
  }
  // Changesets reads the commit that added each changeset for the changelog line.
  const git = (...args: string[]) => execFileSync('git', args, { cwd: scratch, stdio: 'ignore' });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '--all');
  git(
    '-c',
    'user.name=release-checks',
    '-c',
    'user.email=release-checks@localhost',
    'commit',
    '--quiet',
    '-m',
    'scratch',
  );
  const run = spawnSync(changeset, ['version'], { cwd: scratch, encoding: 'utf8' });
  output = `${run.stdout}${run.stderr}`;
  if (run.status !== 0) throw new Error(`changeset version exited ${run.status}:\n${output}`);
}, 120_000);

it('pending changesets name only public packages', () => {
  const publicNames = new Set(packages.map((pkg) => pkg.name));
  for (const { packages: names } of pending) for (const name of names) expect(publicNames).toContain(name);
});

it.each(packages.map((pkg) => [pkg.name, pkg] as const))('%s gets its next version and a CHANGELOG.md', (_, pkg) => {
  const dir = join(scratch, 'packages', pkg.folder);
  const next = readManifest(dir).version;
  expect(next, output).not.toBe(versionsBefore.get(pkg.folder));
  const changelog = readFileSync(join(dir, 'CHANGELOG.md'), 'utf8');
  expect(changelog.startsWith(`# ${pkg.name}\n\n## ${next}\n`), changelog.slice(0, 200)).toBe(true);
  for (const { summary, packages: names } of released) {
    // The changelog quotes each changeset's first line (later lines are indented under it).
    if (names.includes(pkg.name)) expect(changelog).toContain(summary.split('\n')[0]);
  }
  // Internal ranges keep the workspace protocol; `pnpm publish` turns them into `^<version>`.
  for (const [name, range] of Object.entries(readManifest(dir).dependencies ?? {})) {
    if (name.startsWith('@kyc/')) expect(range).toBe('workspace:^');
  }
});

it('leaves private packages (test-support, tools, examples) unversioned and without a changelog', () => {
  const privateNames = privatePackageNames();
  for (const folder of workspaceFolders) {
    for (const name of readdirSync(join(scratch, folder))) {
      const manifest: Manifest = readManifest(join(scratch, folder, name));
      if (!privateNames.has(manifest.name)) continue;
      expect(manifest.version, manifest.name).toBe(readManifest(join(ROOT, folder, name)).version);
      expect(existsSync(join(scratch, folder, name, 'CHANGELOG.md')), manifest.name).toBe(false);
    }
  }
});

it('consumes the changesets it released', () => {
  expect(readdirSync(join(scratch, '.changeset')).sort()).toEqual(['README.md', 'config.json']);
});
