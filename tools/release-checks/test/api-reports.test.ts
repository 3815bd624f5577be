import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ACCEPT_ADVICE,
  type ApiReport,
  declarationProblems,
  extractApiReports,
  reportFindings,
  UPDATE_COMMAND,
} from '../src/api-report.ts';
import { publicPackages, ROOT, typedEntryPoints } from '../src/workspace.ts';

// The committed etc/*.api.md are the reviewable record of the public API: a pull request that
// changes an export shows it as a diff there, and this suite fails until the diff is committed.

describe('the committed API reports', () => {
  const reports: ApiReport[] = extractApiReports();

  it('cover every public entry point with types, one report each', () => {
    const expected = publicPackages().flatMap((pkg) => typedEntryPoints(pkg).map((entry) => entry.reportName));
    expect(reports.map((report) => report.file)).toEqual(expected.map((name) => `etc/${name}.api.md`));
    expect(reports.map((report) => report.file)).toEqual(
      expect.arrayContaining(['etc/webhook-receiver.postgres.api.md', 'etc/webhook-receiver.testing.api.md']),
    );
  });

  it('match what the built declarations export', () => {
    const findings = reportFindings(reports);
    expect(findings, `\n${findings.join('\n\n')}\n\n${ACCEPT_ADVICE}\n`).toEqual([]);
  });

  it('name no type that users cannot import, and the declarations compile', () => {
    const problems = declarationProblems(reports);
    expect(problems, `\n${problems.join('\n')}\n`).toEqual([]);
  });

  it('leave out what is marked @internal', () => {
    for (const report of reports) expect(report.generated, report.file).not.toMatch(/@internal|ae-forgotten-export/);
    // AuditTrail.attach is the receiver's own wiring, marked @internal in its TSDoc.
    const receiver = reports.find((report) => report.file === 'etc/webhook-receiver.api.md');
    expect(receiver?.generated).toMatch(/export interface AuditTrail \{\n\}/);
  });
});

describe('a change to an exported type', () => {
  // A copy of @kyc/client's package.json and declarations beside the real ones (so its imports
  // resolve the same way), with one exported type narrowed, checked against the committed report.
  const client = publicPackages().find((pkg) => pkg.name === '@kyc/client');
  if (client === undefined) throw new Error('@kyc/client is not a public package');
  const copy = join(client.dir, '.tmp', 'api-change');

  it('makes its report stale, shows the diff and says how to accept it', () => {
    rmSync(copy, { recursive: true, force: true });
    mkdirSync(copy, { recursive: true });
    cpSync(join(client.dir, 'package.json'), join(copy, 'package.json'));
    cpSync(join(client.dir, 'dist'), join(copy, 'dist'), {
      recursive: true,
      filter: (source) => !/\.(c?js|map)$/.test(source),
    });
    const declarations = join(copy, 'dist', 'index.d.ts');
    const original = readFileSync(declarations, 'utf8');
    const narrowed = original.replace(
      "type KycTimeoutKind = 'attempt' | 'deadline';",
      "type KycTimeoutKind = 'attempt';",
    );
    expect(narrowed).not.toBe(original);
    writeFileSync(declarations, narrowed);

    const reports = extractApiReports([{ ...client, dir: copy }]);
    const findings = reportFindings(reports).filter((finding) => !finding.includes('belongs to no public entry'));
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatch(/^etc\/client\.api\.md is stale: the public API of @kyc\/client changed\./);
    expect(findings[0]).toContain("-export type KycTimeoutKind = 'attempt' | 'deadline';");
    expect(findings[0]).toContain("+export type KycTimeoutKind = 'attempt';");
    expect(ACCEPT_ADVICE).toContain(UPDATE_COMMAND);
    rmSync(copy, { recursive: true, force: true });
  });
});

it('`pnpm api:update` is the root script that rebuilds and rewrites the reports', () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts;
  expect(UPDATE_COMMAND).toBe('pnpm api:update');
  expect(scripts['api:update']).toMatch(/^pnpm run build && .*api-report-cli\.ts --update$/);
});
