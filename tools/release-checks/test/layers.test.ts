import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { publicPackages, ROOT } from '../src/workspace.ts';

// The layers of docs/architecture.md ("what may import what"), checked: which published package
// may depend on which, and that library sources import no other @kyc package than those.

const LAYERS: Readonly<Record<string, readonly string[]>> = {
  '@kyc/contracts': [],
  '@kyc/client': ['@kyc/contracts'],
  '@kyc/webhook-receiver': ['@kyc/contracts'],
  '@kyc/delivery-engine': ['@kyc/contracts'],
  '@kyc/sandbox': ['@kyc/contracts', '@kyc/delivery-engine'],
};

// `pnpm demo` (src/demo*) drives the whole flow and so uses the client and a receiver; it is
// run from the repository and is no entry point of the published package.
const DEMO = /^packages\/sandbox\/src\/demo(\.ts$|\/)/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

it('each published package depends only on the layers below it', () => {
  const actual = Object.fromEntries(
    publicPackages().map((pkg) => [
      pkg.name,
      Object.keys({ ...pkg.manifest.dependencies, ...pkg.manifest.peerDependencies })
        .filter((name) => name.startsWith('@kyc/'))
        .sort(),
    ]),
  );
  expect(actual).toEqual(LAYERS);
});

it('library sources import no @kyc package their layer does not allow', () => {
  const strays: string[] = [];
  for (const pkg of publicPackages()) {
    const allowed = new Set([pkg.name, ...(LAYERS[pkg.name] ?? [])]);
    for (const file of sources(join(pkg.dir, 'src'))) {
      const path = relative(ROOT, file);
      if (DEMO.test(path)) continue;
      for (const match of readFileSync(file, 'utf8').matchAll(/from '(@kyc\/[\w-]+)(?:\/[\w-]+)?'/g)) {
        if (!allowed.has(match[1] ?? '')) strays.push(`${path} imports ${match[1]}`);
      }
    }
  }
  expect(strays).toEqual([]);
});
