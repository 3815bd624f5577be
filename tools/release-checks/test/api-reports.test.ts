import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportNameFindings } from '../src/api-names.ts';
import {
  ACCEPT_ADVICE,
  type ApiReport,
  declarationProblems,
  extractApiReports,
  reportFindings,
  UPDATE_COMMAND,
} from '../src/api-report.ts';
import { sourceExports } from '../src/source-exports.ts';
import { type PublicPackage, publicPackages, ROOT, typedEntryPoints } from '../src/workspace.ts';

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

  it("list only names that the entry point's source file exports (no bundler chunk's `t`, `_`, `A`)", () => {
    const findings = reportNameFindings(reports, sourceExports(publicPackages()));
    expect(findings, `\n${findings.join('\n')}\n`).toEqual([]);
  });

  it('carry no @internal marker or forgotten-export warning', () => {
    for (const report of reports) expect(report.generated, report.file).not.toMatch(/@internal|ae-forgotten-export/);
  });
});

describe('a change to the declarations', () => {
  // A copy of @kyc/client's package.json and declarations beside the real ones (so its imports
  // resolve the same way), edited, and checked against the committed report.
  const client = publicPackages().find((pkg) => pkg.name === '@kyc/client');
  if (client === undefined) throw new Error('@kyc/client is not a public package');
  const copy = join(client.dir, '.tmp', 'api-change');

  function reportOfEditedCopy(edit: (declarations: string) => string): ApiReport[] {
    rmSync(copy, { recursive: true, force: true });
    mkdirSync(copy, { recursive: true });
    cpSync(join(client?.dir ?? '', 'package.json'), join(copy, 'package.json'));
    cpSync(join(client?.dir ?? '', 'dist'), join(copy, 'dist'), {
      recursive: true,
      filter: (source) => !/\.(c?js|map)$/.test(source),
    });
    const declarations = join(copy, 'dist', 'index.d.ts');
    const original = readFileSync(declarations, 'utf8');
    const edited = edit(original);
    expect(edited, 'the edit must change the declarations').not.toBe(original);
    writeFileSync(declarations, edited);
    try {
      return extractApiReports([{ ...(client as PublicPackage), dir: copy }]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }

  const findingsOf = (reports: ApiReport[]) =>
    reportFindings(reports).filter((finding) => !finding.includes('belongs to no public entry'));

  it('narrowing an exported type makes the report stale, shows the diff and says how to accept it', () => {
    const findings = findingsOf(
      reportOfEditedCopy((text) =>
        text.replace("type KycTimeoutKind = 'attempt' | 'deadline';", "type KycTimeoutKind = 'attempt';"),
      ),
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatch(/^etc\/client\.api\.md is stale: the public API of @kyc\/client changed\./);
    expect(findings[0]).toContain("-export type KycTimeoutKind = 'attempt' | 'deadline';");
    expect(findings[0]).toContain("+export type KycTimeoutKind = 'attempt';");
    expect(ACCEPT_ADVICE).toContain(UPDATE_COMMAND);
  });

  it('a member marked @internal stays out of the report', () => {
    const reports = reportOfEditedCopy((text) =>
      text.replace(
        'export interface KycRequestInfo {',
        'export interface KycRequestInfo {\n  /** @internal */\n  readonly wiring?: string;',
      ),
    );
    expect(findingsOf(reports)).toEqual([]);
  });

  it('a type that a public signature names but no entry point exports is a problem to fix', () => {
    const reports = reportOfEditedCopy(
      (text) => `${text}\ninterface Wiring {\n  readonly slot: number;\n}\nexport declare function wiring(): Wiring;\n`,
    );
    const problems = declarationProblems(reports);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('No entry point of @kyc/client exports "Wiring"');
  });
});

it('`pnpm api:check` fails when a committed report lists a name the source does not export', () => {
  // A copy of etc/ with the symptom of the webhook-reader bug planted: a chunk's one-letter export.
  const planted = join(ROOT, '.tmp', 'release-checks', 'planted-etc');
  rmSync(planted, { recursive: true, force: true });
  cpSync(join(ROOT, 'etc'), planted, { recursive: true });
  const report = join(planted, 'contracts.webhook-reader.api.md');
  const text = readFileSync(report, 'utf8');
  writeFileSync(report, text.replace('// @public\n', '// @public\nexport interface t {\n}\n\n// @public\n'));
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'tools/release-checks/src/api-report-cli.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, KYC_API_REPORT_FOLDER: planted },
  });
  rmSync(planted, { recursive: true, force: true });
  expect(run.status, run.stderr).toBe(1);
  expect(run.stderr).toContain(
    'contracts.webhook-reader.api.md for @kyc/contracts/webhook-reader lists "t", which packages/contracts/src/webhook-reader.ts does not export.',
  );
  expect(run.stderr).toContain('exports of a bundler chunk');
});

it('`pnpm api:update` is the root script that rebuilds and rewrites the reports', () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts;
  expect(UPDATE_COMMAND).toBe('pnpm api:update');
  expect(scripts['api:update']).toMatch(/^pnpm run build && .*api-report-cli\.ts --update$/);
});
