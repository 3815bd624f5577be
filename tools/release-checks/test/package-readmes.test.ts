import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TYPESCRIPT_VERSIONS } from '../src/packed-consumer.ts';
import { publicPackages, ROOT, readManifest } from '../src/workspace.ts';

// A package's README.md is the page npm shows. The registry renders it away from the repository,
// so a relative link (`../../docs/…`) leads nowhere there; and a reader arriving from a search
// needs the install line of their package manager and what the package supports.

const repository = (readManifest(ROOT).repository?.url ?? '').replace(/^git\+/, '').replace(/\.git$/, '');
const inRepository = new RegExp(`^${repository.replaceAll('.', '\\.')}/(?:blob|tree)/main/([^#?]+)`);

/** Every link target of a Markdown file: inline, reference-style, and HTML href/src. */
function linkTargets(markdown: string): string[] {
  // Code is not a link: `[a](b)` inside a fence or backticks is an example.
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1] ?? ''),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1] ?? ''),
    ...[...prose.matchAll(/\b(?:href|src)\s*=\s*["']([^"']+)["']/g)].map((match) => match[1] ?? ''),
  ];
}

/** A link that still works on the registry's page: absolute https, or an anchor of the page itself. */
function worksOnTheRegistry(target: string): boolean {
  return target.startsWith('https://') || target.startsWith('#');
}

it('finds relative links, and only those, in a planted README', () => {
  const planted = [
    'See [the docs](../../docs/contract.md), [src](src/index.ts) and [ref].',
    '[ref]: ./other.md',
    '<img src="logo.svg"> and [absolute](https://example.com/a) and [anchor](#install).',
    '`[not a link](../in/code)`',
    '```md',
    '[not a link either](../../docs/x.md)',
    '```',
  ].join('\n');
  expect(linkTargets(planted).filter((target) => !worksOnTheRegistry(target))).toEqual([
    '../../docs/contract.md',
    'src/index.ts',
    './other.md',
    'logo.svg',
  ]);
});

// Node majors from `engines.node` (`^22.19.0 || ^24.11.0 || >=26.0.0` → 22, 24, 26).
const nodeMajors = (readManifest(ROOT).engines?.node ?? '').match(/\d+(?=\.\d+\.\d+)/g) ?? [];
const nodeLine = `Node ${nodeMajors.slice(0, -1).join(', ')} and ${nodeMajors.at(-1)}`;

describe.each(publicPackages())('$name README.md', (pkg) => {
  const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8');
  const links = linkTargets(readme);

  it('has only absolute https links or anchors (npm renders it away from the repository)', () => {
    expect(links.filter((target) => !worksOnTheRegistry(target))).toEqual([]);
    expect(links.length).toBeGreaterThan(0);
  });

  it("links into this repository's main branch only at files that exist", () => {
    const missing = links
      .map((target) => inRepository.exec(target)?.[1])
      .filter((path): path is string => path !== undefined && !existsSync(join(ROOT, decodeURIComponent(path))));
    expect(missing).toEqual([]);
  });

  it('gives the install line for npm, pnpm and yarn, in a shell block', () => {
    const shell = [...readme.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)].flatMap((match) =>
      (match[1] ?? '').split('\n').map((line) => line.trim()),
    );
    for (const line of [`npm install ${pkg.name}`, `pnpm add ${pkg.name}`, `yarn add ${pkg.name}`]) {
      expect(shell, line).toContain(line);
    }
  });

  it('states the supported Node lines and the TypeScript versions the packed-consumer test proves', () => {
    expect(nodeMajors.length).toBeGreaterThan(1);
    const versions = TYPESCRIPT_VERSIONS.map(({ label }) => label.replace(/^TypeScript /, ''));
    const stated = [
      nodeLine,
      `TypeScript ${versions.join(' and ')}`,
      '`moduleResolution` `nodenext` or `bundler`',
      'docs/versioning.md#supported-typescript-versions-and-runtimes',
    ];
    expect(stated.filter((text) => !readme.includes(text))).toEqual([]);
  });
});
