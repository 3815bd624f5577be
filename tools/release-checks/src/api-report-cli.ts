/**
 * `pnpm api:update` (after `pnpm build`): rewrites etc/*.api.md from the built declarations.
 * `pnpm api:check`: exits 1 when a report is stale, missing or orphaned, or a public signature
 * names a type no entry point exports, or a report lists a name the entry's source does not export.
 * `pnpm test` runs the same checks as tests.
 */
import { reportNameFindings } from './api-names.ts';
import {
  ACCEPT_ADVICE,
  declarationProblems,
  extractApiReports,
  REPORT_FOLDER,
  reportFindings,
  writeApiReports,
} from './api-report.ts';
import { sourceExports } from './source-exports.ts';
import { publicPackages } from './workspace.ts';

const update = process.argv.includes('--update');
const packages = publicPackages();
const reports = extractApiReports(packages);
const problems = declarationProblems(reports);
// Checked in both modes: `--update` must not write a report of names nobody exported.
const nameFindings = reportNameFindings(
  update ? reports.map((report) => ({ ...report, committed: undefined })) : reports,
  sourceExports(packages),
);

if (update) {
  const changed = writeApiReports(reports);
  console.log(
    changed.length === 0
      ? `API reports: all ${reports.length} in ${REPORT_FOLDER} were up to date.`
      : `API reports: rewrote ${changed.length} of ${reports.length}:\n  ${changed.join('\n  ')}\nReview the diff (git diff etc/) and commit it.`,
  );
} else {
  const findings = reportFindings(reports);
  if (findings.length > 0) {
    console.error(`${findings.join('\n\n')}\n\n${ACCEPT_ADVICE}`);
    process.exitCode = 1;
  } else {
    console.log(`API reports: all ${reports.length} match the built declarations.`);
  }
}
if (nameFindings.length > 0) {
  console.error(`\nAPI reports list names the sources do not export:\n${nameFindings.join('\n')}`);
  process.exitCode = 1;
}
if (problems.length > 0) {
  console.error(`\nThe declarations need a fix (accepting the report does not help):\n${problems.join('\n')}`);
  process.exitCode = 1;
}
