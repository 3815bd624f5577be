import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsumedEntry,
  importEverything,
  installConsumer,
  NODE_TYPES,
  packTarballs,
  type RuntimeExports,
  runTsc,
  runtimeExports,
  TYPESCRIPT_VERSIONS,
} from '../src/packed-consumer.ts';
import { type SourceExports, sourceExports } from '../src/source-exports.ts';
import { publicPackages, ROOT, typedEntryPoints } from '../src/workspace.ts';

// A user's project, from the packed tarballs: it imports every named export of every entry
// point, as ESM and as CommonJS, and type-checks on each supported TypeScript version, under
// `moduleResolution` nodenext and bundler, with `skipLibCheck` true and false. One install
// serves the whole matrix. The names come from the entries themselves at run time (values) and
// from the sources' exports (types, which have no run-time trace).

const work = join(ROOT, '.tmp', 'release-checks', 'packed-consumer');
const consumer = join(work, 'project');
const packages = publicPackages();
const specifiers = packages.flatMap((pkg) =>
  typedEntryPoints(pkg).map((entry) => `${pkg.name}${entry.subpath.slice(1)}`),
);

// The handler's event must be typed: with declarations that degrade to `any` (the webhook-reader
// bug) both lines compiled. `@ts-expect-error` fails the check when they stop being errors.
const HANDLER = `import { type AuditSignatureHeaders, createWebhookReceiver } from '@kyc/webhook-receiver';
export const receiver = createWebhookReceiver({
  authKeys: 'a-key-of-sixteen-characters',
  async onEvent(event) {
    // @ts-expect-error sessionId is a string
    const n: number = event.sessionId;
    void n;
  },
});
// @ts-expect-error only the three signature headers
export const headers: AuditSignatureHeaders = { notAHeader: 42 };
`;
const NEGATIVE = `import { createWebhookReceiver } from '@kyc/webhook-receiver';
createWebhookReceiver({
  authKeys: 'a-key-of-sixteen-characters',
  async onEvent(event) {
    const n: number = event.sessionId;
    void n;
  },
});
`;

const RESOLUTIONS = {
  nodenext: { module: 'nodenext', files: ['esm.mts', 'cjs.cts', 'handler.mts'] },
  bundler: { module: 'esnext', files: ['esm.mts', 'handler.mts'] },
} as const;

function tsconfig(
  resolution: keyof typeof RESOLUTIONS,
  skipLibCheck: boolean,
  files: readonly string[],
  dir = consumer,
): string {
  const { module } = RESOLUTIONS[resolution];
  const compilerOptions = {
    target: 'es2022',
    lib: ['es2023'],
    module,
    moduleResolution: resolution,
    types: ['node'],
    strict: true,
    noEmit: true,
    skipLibCheck,
  };
  const name = `tsconfig.${resolution}.${skipLibCheck ? 'skip' : 'full'}${files.length === 1 ? '.negative' : ''}.json`;
  writeFileSync(join(dir, name), JSON.stringify({ compilerOptions, files }, null, 2));
  return name;
}

let runtime: Record<string, RuntimeExports> = {};
let sources: SourceExports[] = [];

// The same tarballs, installed with no optional peer: only what npm installs for the packages
// themselves, and @types/node (the runtime's globals: `Request`, `AbortSignal`, `node:http`).
// @kyc/sandbox gets a project of its own: it depends on @opentelemetry/api, which would then be
// installed beside the libraries whose optional peer it is and hide its absence.
const SANDBOX = '@kyc/sandbox';
const libraries = join(work, 'only-required-peers');
const sandboxAlone = join(work, 'sandbox-alone');

beforeAll(async () => {
  const tarballs = packTarballs(packages, join(work, 'tarballs'));
  const names = packages.map((pkg) => pkg.name);
  // The three installs at once: each mostly waits on npm's cache and the disk.
  await Promise.all([
    installConsumer(consumer, tarballs),
    installConsumer(libraries, tarballs, { packages: names.filter((n) => n !== SANDBOX), dependencies: NODE_TYPES }),
    installConsumer(sandboxAlone, tarballs, { packages: [SANDBOX], dependencies: NODE_TYPES }),
  ]);
  runtime = runtimeExports(consumer, specifiers);
  sources = sourceExports(packages);
  const entries = (kind: keyof RuntimeExports): ConsumedEntry[] =>
    specifiers.map((specifier) => {
      const values = runtime[specifier]?.[kind] ?? [];
      const source = sources.find((s) => `${s.packageName}${s.subpath.slice(1)}` === specifier);
      const types = [...(source?.names ?? [])].filter((name) => !values.includes(name)).sort();
      return { specifier, values, types };
    });
  writeFileSync(join(consumer, 'esm.mts'), importEverything(entries('esm')));
  writeFileSync(join(consumer, 'cjs.cts'), importEverything(entries('cjs')));
  for (const [dir, keep] of [
    [libraries, (spec: string) => !spec.startsWith(SANDBOX)],
    [sandboxAlone, (spec: string) => spec.startsWith(SANDBOX)],
  ] as const) {
    writeFileSync(join(dir, 'esm.mts'), importEverything(entries('esm').filter((e) => keep(e.specifier))));
    writeFileSync(join(dir, 'cjs.cts'), importEverything(entries('cjs').filter((e) => keep(e.specifier))));
  }
  writeFileSync(join(consumer, 'handler.mts'), HANDLER);
  writeFileSync(join(consumer, 'negative.mts'), NEGATIVE);
}, 300_000);

it('every entry point hands over the same names to import() and require(), all of them exported by its source', () => {
  expect(Object.keys(runtime)).toEqual(specifiers);
  for (const specifier of specifiers) {
    const { esm = [], cjs = [] } = runtime[specifier] ?? {};
    expect(esm.length, specifier).toBeGreaterThan(0);
    expect(cjs, specifier).toEqual(esm);
    const source = sources.find((s) => `${s.packageName}${s.subpath.slice(1)}` === specifier);
    expect(
      esm.filter((name) => !source?.names.has(name)),
      specifier,
    ).toEqual([]);
  }
  // The entry of the original bug, by its real names.
  expect(runtime['@kyc/contracts/webhook-reader']?.esm).toEqual(
    expect.arrayContaining(['HEADERS', 'normalizeWebhookBody', 'sessionIdRule']),
  );
});

describe.each(TYPESCRIPT_VERSIONS)('$label', ({ alias }) => {
  it.each([
    ['nodenext', true],
    ['nodenext', false],
    ['bundler', true],
    ['bundler', false],
  ] as const)('type-checks every named export under moduleResolution %s, skipLibCheck %s', (resolution, skip) => {
    const result = runTsc(consumer, alias, tsconfig(resolution, skip, RESOLUTIONS[resolution].files));
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('rejects `const n: number = event.sessionId` in a receiver handler (TS2322)', () => {
    const result = runTsc(consumer, alias, tsconfig('nodenext', true, ['negative.mts']));
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(
      /^negative\.mts\(5,11\): error TS2322: Type 'string' is not assignable to type 'number'\.$/,
    );
  });
});

// docs/versioning.md names each optional peer whose absence a type check reports, and the
// packages whose declarations import it: `- \`fastify\`, an optional peer of \`@kyc/…\`…`.
const versioning = readFileSync(join(ROOT, 'docs', 'versioning.md'), 'utf8');
const documented = Object.fromEntries(
  [...versioning.matchAll(/^- `([^`]+)`, an optional peer of (.*)$/gm)].map(([, peer = '', rest = '']) => [
    peer,
    [...rest.matchAll(/`(@kyc\/[\w-]+)`/g)].map((match) => match[1] ?? '').sort(),
  ]),
);
// The files that import every export (the handler's checks run in the first project).
const withoutHandler = (resolution: keyof typeof RESOLUTIONS) =>
  RESOLUTIONS[resolution].files.filter((file) => file !== 'handler.mts');
const MISSING_PEER = /^node_modules\/(@kyc\/[\w-]+)\/dist\/\S+\(\d+,\d+\): error TS2307: Cannot find module '([^']+)'/;

describe.each(TYPESCRIPT_VERSIONS)('$label, no optional peer installed, skipLibCheck false', ({ alias }) => {
  it.each(['nodenext', 'bundler'] as const)(
    'moduleResolution %s: every named export type-checks but for the documented optional peers',
    (resolution) => {
      const result = runTsc(libraries, alias, tsconfig(resolution, false, withoutHandler(resolution), libraries));
      const errors = result.output.split('\n').filter((line) => line !== '');
      // Only "cannot find module <peer>" in the declarations of a package whose optional peer it is.
      const unexplained = errors.filter((line) => {
        const [, pkg = '', peer = ''] = MISSING_PEER.exec(line) ?? [];
        const meta = packages.find((p) => p.name === pkg)?.manifest.peerDependenciesMeta?.[peer];
        return meta?.optional !== true;
      });
      expect(unexplained).toEqual([]);
      const seen: Record<string, string[]> = {};
      for (const [, pkg = '', peer = ''] of errors.map((line) => MISSING_PEER.exec(line) ?? [])) {
        seen[peer] = [...new Set([...(seen[peer] ?? []), pkg])].sort();
      }
      // Each one the docs name, and the docs name no other.
      expect(seen).toEqual(documented);
    },
  );

  it.each(['nodenext', 'bundler'] as const)('moduleResolution %s: @kyc/sandbox alone, 0 errors', (resolution) => {
    const result = runTsc(sandboxAlone, alias, tsconfig(resolution, false, withoutHandler(resolution), sandboxAlone));
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });
});
