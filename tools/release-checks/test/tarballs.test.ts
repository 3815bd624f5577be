import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SIZE_BUDGETS } from '../src/size-budgets.ts';
import { manifestFindings, tarballFindings } from '../src/tarball-rules.ts';
import { type Manifest, privatePackageNames, publicPackages, ROOT, readManifest } from '../src/workspace.ts';

// What npm would put in each tarball (`npm pack --dry-run --json`, the command the issue names),
// checked file by file; then the real tarballs `pnpm pack` makes (what `changeset publish`
// uploads), unpacked as an install would unpack them.

const packages = publicPackages();
const root = readManifest(ROOT);
const rootLicense = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
const privateNames = privatePackageNames();

interface NpmPackResult {
  readonly name: string;
  /** Bytes of the .tgz, and of its files unpacked. */
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly { readonly path: string }[];
}

it('publishes exactly the five packages of packages/ (test-support, tools and examples stay private)', () => {
  expect(packages.map((pkg) => pkg.name)).toEqual([
    '@kyc/client',
    '@kyc/contracts',
    '@kyc/delivery-engine',
    '@kyc/sandbox',
    '@kyc/webhook-receiver',
  ]);
  expect([...privateNames]).toContain('@kyc/test-support');
});

describe.each(packages)('$name', (pkg) => {
  const unpacked = join(ROOT, '.tmp', 'release-checks', 'unpacked', pkg.folder);
  let files: string[] = [];
  let sizes = { packed: 0, unpacked: 0 };
  let packedManifest: Manifest;

  beforeAll(() => {
    const json = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: pkg.dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const [result] = JSON.parse(json) as NpmPackResult[];
    files = (result?.files ?? []).map((file) => file.path).sort();
    sizes = { packed: result?.size ?? 0, unpacked: result?.unpackedSize ?? 0 };

    rmSync(unpacked, { recursive: true, force: true });
    mkdirSync(unpacked, { recursive: true });
    const tarball = execFileSync('pnpm', ['pack', '--pack-destination', unpacked, '--json'], {
      cwd: pkg.dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { filename } = JSON.parse(tarball) as { filename: string };
    execFileSync('tar', ['-xzf', filename, '-C', unpacked], { cwd: unpacked });
    packedManifest = readManifest(join(unpacked, 'package'));
  });

  it('ships LICENSE, README and dist, every export and bin, and nothing that is not for users', () => {
    expect(tarballFindings(pkg.manifest, files, (path) => readFileSync(join(pkg.dir, path), 'utf8'))).toEqual([]);
    // From the first release on, the changelog travels with the code.
    if (existsSync(join(pkg.dir, 'CHANGELOG.md'))) expect(files).toContain('CHANGELOG.md');
  });

  it('builds before a hand-run `npm publish` or `pnpm publish` (prepublishOnly), so a stale dist/ never ships', () => {
    expect(pkg.manifest.scripts?.prepublishOnly).toBe('pnpm run build');
    expect(pkg.manifest.scripts?.build).toBeDefined();
    // pnpm pack leaves the script out of the published manifest: an install never runs it.
    expect(packedManifest.scripts?.prepublishOnly).toBeUndefined();
  });

  it('weighs no more than its budget (src/size-budgets.ts), and says what it weighs', () => {
    const budget = SIZE_BUDGETS[pkg.name];
    const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
    // Printed for CI's log: the trend shows before a budget is reached.
    console.log(
      `${pkg.name}: ${kb(sizes.packed)} packed (budget ${kb(budget?.packed ?? 0)}), ` +
        `${kb(sizes.unpacked)} unpacked (budget ${kb(budget?.unpacked ?? 0)}), ${files.length} files`,
    );
    expect(budget, `${pkg.name} has no budget in src/size-budgets.ts`).toBeDefined();
    expect(sizes.packed).toBeGreaterThan(0);
    expect(sizes.packed).toBeLessThanOrEqual(budget?.packed ?? 0);
    expect(sizes.unpacked).toBeLessThanOrEqual(budget?.unpacked ?? 0);
  });

  it('carries the registry metadata a legal review and `npm view` read', () => {
    expect(manifestFindings(pkg.manifest, pkg.folder, root, privateNames)).toEqual([]);
  });

  it('unpacks, as an install does, to the MIT license text and the same metadata, with workspace ranges resolved', () => {
    expect(readFileSync(join(unpacked, 'package', 'LICENSE'), 'utf8')).toBe(rootLicense);
    expect(rootLicense).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} KYC webhooks SDK contributors\n/);
    expect(manifestFindings(packedManifest, pkg.folder, root, privateNames)).toEqual([]);
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
      for (const [name, range] of Object.entries(packedManifest[field] ?? {})) {
        expect(range, `${field}.${name}`).not.toMatch(/^workspace:/);
        // An internal dependency follows semver (`^x.y.z`), so two packages of one release line share it.
        if (name.startsWith('@kyc/')) expect(range, `${field}.${name}`).toBe(`^${readManifest(dirOf(name)).version}`);
      }
    }
  });
});

function dirOf(name: string): string {
  const pkg = packages.find((candidate) => candidate.name === name);
  if (pkg === undefined) throw new Error(`${name} is not a public package`);
  return pkg.dir;
}
