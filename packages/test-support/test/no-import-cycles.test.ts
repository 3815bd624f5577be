import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { expect, it } from 'vitest';

// No import circles, not even through a type: a type two files share lives in the lower one.
// madge reads `import type` too (detective-typescript keeps type imports unless told to skip them).
const root = fileURLToPath(new URL('../../..', import.meta.url));
const sources = readdirSync(`${root}packages`).map((name) => `${root}packages/${name}/src`);

it('no package source imports itself back, through values or types', async () => {
  const graph = await madge(sources, {
    fileExtensions: ['ts'],
    tsConfig: `${root}tsconfig.base.json`,
    detectiveOptions: { ts: { skipTypeImports: false }, es6: { skipTypeImports: false } },
  });
  // A graph that read nothing would pass vacuously: the receiver's core alone has dozens of files.
  expect(Object.keys(graph.obj()).length).toBeGreaterThan(150);
  expect(graph.circular()).toEqual([]);
});
