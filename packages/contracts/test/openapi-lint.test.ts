import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../src/openapi.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const redocly = join(packageDir, 'node_modules', '.bin', 'redocly');

interface LintProblem {
  readonly ruleId: string;
  readonly severity: 'error' | 'warn';
  readonly message: string;
  readonly location: readonly { readonly pointer: string }[];
}

// A third-party OpenAPI 3.1 linter, Redocly CLI, with its recommended rules all raised to
// errors (redocly.yaml): the document must come out without a single problem.
describe('the OpenAPI document', () => {
  it('passes Redocly lint (recommended-strict) with no error and no warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-openapi-lint-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(buildOpenApiDocument(), null, 2));
      const run = await promisify(execFile)(
        redocly,
        ['lint', file, '--config', join(packageDir, 'redocly.yaml'), '--format', 'json'],
        {
          cwd: dir,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
          maxBuffer: 16 * 1024 * 1024,
        },
      ).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr }));
      const report = JSON.parse(run.stdout) as { totals: Record<string, number>; problems: LintProblem[] };
      const problems = report.problems.map(
        (p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`,
      );
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
