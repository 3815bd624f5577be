import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// "No protocol constant or wire field name is written in any other package's source."
// Scans the library sources of every other package for the literals that belong here.
const root = fileURLToPath(new URL('../../..', import.meta.url));

const FORBIDDEN: readonly RegExp[] = [
  /Service-Webhook\/1\.0/,
  /['"`]\/api\/v1\/kyc/,
  /\b(60_?000|300_?000|900_?000)\b/,
  /['"`](webhook-id|webhook-timestamp|webhook-signature|webhook-attempt|x-request-id)['"`]/i,
  /['"`](detailsURL|shortKey|confidenceScore|validationResults|userData|oneToOne)['"`]/,
  /['"`](APPROVED|REJECTED|PENDING|AUTOMATIC|MANUAL|IN_PROGRESS|SESSION_NOT_FOUND)['"`]/,
  /['"`]session\.completed['"`]/,
  /['"`]\/session\/finish['"`]/,
];

// Prose may name a header or a field (TSDoc that tells the user what `Webhook-Id` is for);
// only code can restate one, so comment lines are not scanned.
const COMMENT_LINE = /^\s*(\/\/|\/\*|\*)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts|cts|js|mjs)$/.test(name) && !/\.test\.|\.spec\./.test(name) ? [path] : [];
  });
}

describe('@kyc/contracts is the single source of truth', () => {
  it('no other package writes a protocol constant or wire field name in its library source', () => {
    const packages = readdirSync(join(root, 'packages')).filter(
      (name) => name !== 'contracts' && name !== 'test-support',
    );
    const hits: string[] = [];
    for (const name of packages) {
      let files: string[];
      try {
        files = sourceFiles(join(root, 'packages', name, 'src'));
      } catch {
        continue;
      }
      for (const file of files) {
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, index) => {
            if (!COMMENT_LINE.test(line) && FORBIDDEN.some((pattern) => pattern.test(line)))
              hits.push(`${relative(root, file)}:${index + 1}: ${line.trim()}`);
          });
      }
    }
    expect(hits).toEqual([]);
  });
});
