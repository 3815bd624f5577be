import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsumedEntry,
  importEverything,
  installConsumer,
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

function tsconfig(resolution: keyof typeof RESOLUTIONS, skipLibCheck: boolean, files: readonly string[]): string {
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
  writeFileSync(join(consumer, name), JSON.stringify({ compilerOptions, files }, null, 2));
  return name;
}

let runtime: Record<string, RuntimeExports> = {};
let sources: SourceExports[] = [];

beforeAll(() => {
  installConsumer(consumer, packTarballs(packages, join(work, 'tarballs')));
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
