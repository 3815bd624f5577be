import { relative } from 'node:path';
import { type ApiReport, exportedNames } from './api-report.ts';
import type { SourceExports } from './source-exports.ts';
import { ROOT } from './workspace.ts';

/**
 * Every API report (the committed one and the one just generated) may list only names that the
 * entry point's source file exports. The reports are made from the built declarations, so a
 * declaration file that is not the entry's own shows up here as names nobody wrote: for
 * `@kyc/contracts/webhook-reader` a shared chunk's `_`, `A`, `t`… sat in the committed report
 * from its first day, and reviewing the diff did not catch it. Returns one message per report.
 */
export function reportNameFindings(reports: readonly ApiReport[], sources: readonly SourceExports[]): string[] {
  const findings: string[] = [];
  for (const report of reports) {
    const source = sources.find(
      (candidate) => candidate.packageName === report.packageName && candidate.subpath === report.subpath,
    );
    if (source === undefined) {
      findings.push(`${report.file}: no source file found for ${report.packageName}${report.subpath.slice(1)}`);
      continue;
    }
    const texts: [string, string | undefined][] = [
      ['the generated report', report.generated],
      [report.file, report.committed],
    ];
    for (const [which, text] of texts) {
      if (text === undefined) continue;
      const unknown = [...new Set(exportedNames(text))].filter((name) => !source.names.has(name));
      if (unknown.length === 0) continue;
      const short = unknown.filter((name) => name.length <= 2);
      findings.push(
        `${which} for ${report.packageName}${report.subpath.slice(1)} lists ${unknown.map((n) => `"${n}"`).join(', ')}, ` +
          `which ${relative(ROOT, source.sourceFile)} does not export.` +
          (short.length > 0
            ? " One- and two-letter names are the exports of a bundler chunk: the declaration file the exports map points at is not the entry point's own (see tsdown.base.ts)."
            : ' The declarations export something the source does not: check the build.'),
      );
    }
  }
  return findings;
}
