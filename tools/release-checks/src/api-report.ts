import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
  ExtractorMessageCategory,
} from '@microsoft/api-extractor';
import { type PublicPackage, publicPackages, ROOT, type TypedEntryPoint, typedEntryPoints } from './workspace.ts';

/** Where the committed reports live, one per public entry point. */
// KYC_API_REPORT_FOLDER lets a test run `pnpm api:check` against a copy holding a planted mistake.
export const REPORT_FOLDER = process.env.KYC_API_REPORT_FOLDER ?? join(ROOT, 'etc');
const TEMP_FOLDER = join(ROOT, '.tmp', 'api-report');

/** The command that rewrites every report; stale-report messages name it. */
export const UPDATE_COMMAND = 'pnpm api:update';

/** The advice under every stale-report message. */
export const ACCEPT_ADVICE = `If the change is intended, run \`${UPDATE_COMMAND}\` (it builds, then rewrites etc/), review the diff and commit it with a changeset (\`pnpm changeset\`; docs/versioning.md says which bump).`;

/** The report API Extractor makes of one entry point, beside the committed one. */
export interface ApiReport {
  readonly packageName: string;
  readonly subpath: string;
  /** `etc/<name>.api.md`, relative to the repository root. */
  readonly file: string;
  /** Where the generated report was written (under `.tmp/`). */
  readonly generatedFile: string;
  /** What the build's declarations export now. */
  readonly generated: string;
  /** The committed report; `undefined` when there is none yet. */
  readonly committed: string | undefined;
  /**
   * What API Extractor found wrong beyond the report: a compiler error in the declarations, or a
   * type that a public signature names but no entry point of the package exports (a user could
   * not name it, and the report could not show it).
   */
  readonly problems: readonly string[];
}

/**
 * Runs API Extractor over the built declarations (`dist/*.d.ts`, what npm publishes) of every
 * public entry point and returns each report beside the committed one. One TypeScript program per
 * package serves all its entry points. Needs `pnpm build` first.
 */
export function extractApiReports(packages: readonly PublicPackage[] = publicPackages()): ApiReport[] {
  rmSync(TEMP_FOLDER, { recursive: true, force: true });
  mkdirSync(TEMP_FOLDER, { recursive: true });
  return packages.flatMap((pkg) => extractPackage(pkg));
}

function extractPackage(pkg: PublicPackage): ApiReport[] {
  const entries = typedEntryPoints(pkg);
  const missing = entries.filter((entry) => !existsSync(entry.declarationFile));
  if (missing.length > 0) {
    const files = missing.map((entry) => relative(ROOT, entry.declarationFile)).join(', ');
    throw new Error(`${pkg.name}: ${files} not found; run \`pnpm build\` first (\`${UPDATE_COMMAND}\` builds for you)`);
  }
  let compilerState: CompilerState | undefined;
  const runs = entries.map((entry) => {
    const config = prepareConfig(pkg, entry, entries);
    compilerState ??= CompilerState.create(config, { additionalEntryPoints: entries.map((e) => e.declarationFile) });
    return runExtractor(pkg, entry, config, compilerState);
  });
  // A type that one entry point's signatures use may be exported by another entry point of the
  // same package (the adapters take the main entry's `WebhookReceiver`): users can name it.
  const exportedByPackage = new Set(runs.flatMap((run) => exportedNames(run.generated)));
  return runs.map(({ forgotten, ...report }) => {
    const leaks = forgotten
      .filter(({ symbol }) => !exportedByPackage.has(symbol))
      .map(
        ({ symbol, text }) =>
          `${text}. No entry point of ${pkg.name} exports "${symbol}", so users cannot name a type its public API uses: export it from an entry point (src/index.ts, or the subpath's own file such as src/postgres.ts) or keep it out of public signatures.`,
      );
    return { ...report, problems: [...report.problems, ...leaks] };
  });
}

function prepareConfig(pkg: PublicPackage, entry: TypedEntryPoint, all: readonly TypedEntryPoint[]): ExtractorConfig {
  return ExtractorConfig.prepare({
    configObjectFullPath: undefined,
    packageJsonFullPath: join(pkg.dir, 'package.json'),
    configObject: {
      projectFolder: pkg.dir,
      mainEntryPointFilePath: entry.declarationFile,
      compiler: {
        // Resolve other packages as a user's project does (exports maps, `types` conditions),
        // never through the workspace's `@kyc/source` condition.
        overrideTsconfig: {
          compilerOptions: {
            target: 'es2022',
            module: 'nodenext',
            moduleResolution: 'nodenext',
            lib: ['es2023', 'dom', 'dom.iterable'],
            types: ['node'],
            strict: true,
            skipLibCheck: true,
          },
          files: all.map((other) => other.declarationFile),
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.reportName,
        // `public` leaves out members marked `@internal`: they are not part of the promise.
        reportVariants: ['public'],
        reportFolder: TEMP_FOLDER,
        reportTempFolder: join(TEMP_FOLDER, 'temp'),
        includeForgottenExports: false,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning },
          // The packages use no release tags: every export is public unless marked `@internal`.
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          // Documentation is typedoc's to check (`pnpm docs`, links included); the report marks
          // undocumented members itself.
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
          'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
  });
}

interface ForgottenExport {
  readonly symbol: string;
  readonly text: string;
}

function runExtractor(
  pkg: PublicPackage,
  entry: TypedEntryPoint,
  config: ExtractorConfig,
  compilerState: CompilerState,
): ApiReport & { readonly forgotten: readonly ForgottenExport[] } {
  const problems: string[] = [];
  const forgotten: ForgottenExport[] = [];
  const result = Extractor.invoke(config, {
    localBuild: true,
    compilerState,
    showVerboseMessages: false,
    messageCallback: (message: ExtractorMessage) => {
      message.handled = true;
      // Its progress lines ("the report was created/changed") are for its own CLI; we say our own.
      if (message.category === ExtractorMessageCategory.Console) return;
      if (message.logLevel !== ExtractorLogLevel.Warning && message.logLevel !== ExtractorLogLevel.Error) return;
      const text = message.formatMessageWithLocation(`${pkg.dir}/`);
      const symbol = /^The symbol "([^"]+)" needs to be exported/.exec(message.text)?.[1];
      if (message.messageId === 'ae-forgotten-export' && symbol !== undefined) forgotten.push({ symbol, text });
      else problems.push(text);
    },
  });
  if (!result.succeeded && problems.length === 0 && forgotten.length === 0) {
    problems.push(`API Extractor failed on ${relative(ROOT, entry.declarationFile)}`);
  }
  const generatedFile = join(TEMP_FOLDER, `${entry.reportName}.public.api.md`);
  const file = join(REPORT_FOLDER, `${entry.reportName}.api.md`);
  return {
    packageName: pkg.name,
    subpath: entry.subpath,
    file: relative(ROOT, file),
    generatedFile,
    generated: readFileSync(generatedFile, 'utf8'),
    committed: existsSync(file) ? readFileSync(file, 'utf8') : undefined,
    problems,
    forgotten,
  };
}

/** The names a report declares as exported (`export interface X`, `export { X }`, …). */
export function exportedNames(report: string): string[] {
  const names: string[] = [];
  const declaration =
    /^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|var|enum|namespace) (\w+)/gm;
  for (const match of report.matchAll(declaration)) if (match[1]) names.push(match[1]);
  for (const match of report.matchAll(/^export \{([^}]*)\}/gm)) {
    for (const part of (match[1] ?? '').split(',')) {
      const name = part
        .trim()
        .split(/\s+as\s+/)
        .pop();
      if (name) names.push(name);
    }
  }
  return names;
}

/** Writes every generated report to `etc/` and removes reports of entry points that no longer exist. */
export function writeApiReports(reports: readonly ApiReport[]): string[] {
  mkdirSync(REPORT_FOLDER, { recursive: true });
  const changed: string[] = [];
  for (const report of reports) {
    if (report.committed === report.generated) continue;
    writeFileSync(join(ROOT, report.file), report.generated);
    changed.push(report.file);
  }
  for (const orphan of orphanReports(reports)) {
    rmSync(join(ROOT, orphan));
    changed.push(`${orphan} (removed)`);
  }
  return changed;
}

/**
 * Why the committed reports do not match the build, each as a message that says what changed;
 * empty when everything matches.
 */
export function reportFindings(reports: readonly ApiReport[]): string[] {
  const findings: string[] = [];
  for (const report of reports) {
    const what = `the public API of ${report.packageName}${report.subpath === '.' ? '' : report.subpath.slice(1)}`;
    if (report.committed === undefined) {
      findings.push(`${report.file} is missing: ${what} has no committed report yet.`);
    } else if (report.committed !== report.generated) {
      findings.push(`${report.file} is stale: ${what} changed.\n${diff(report)}`);
    }
  }
  for (const orphan of orphanReports(reports)) {
    findings.push(`${orphan} belongs to no public entry point any more (an entry point was removed or renamed).`);
  }
  return findings;
}

/** Problems API Extractor found in the declarations themselves (not fixed by accepting a report). */
export function declarationProblems(reports: readonly ApiReport[]): string[] {
  return reports.flatMap((report) =>
    report.problems.map((problem) => `${report.packageName}${report.subpath.slice(1)}: ${problem}`),
  );
}

function diff(report: ApiReport): string {
  const result = spawnSync(
    'git',
    ['diff', '--no-index', '--no-color', '--unified=2', '--', report.file, relative(ROOT, report.generatedFile)],
    { cwd: ROOT, encoding: 'utf8' },
  );
  // Exit code 1 is git's "the files differ".
  return result.status === 1 ? result.stdout.trimEnd() : `(no diff: git diff exited ${result.status})`;
}

/** Committed reports (`etc/*.api.md`) that no public entry point produces any more. */
export function orphanReports(reports: readonly ApiReport[]): string[] {
  if (!existsSync(REPORT_FOLDER)) return [];
  const expected = new Set(reports.map((report) => report.file));
  return readdirSync(REPORT_FOLDER)
    .filter((name) => name.endsWith('.api.md'))
    .sort()
    .map((name) => relative(ROOT, join(REPORT_FOLDER, name)))
    .filter((file) => !expected.has(file));
}
