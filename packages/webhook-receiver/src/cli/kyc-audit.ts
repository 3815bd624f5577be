#!/usr/bin/env node
import { runKycAudit } from './run-kyc-audit.js';

// The bin: everything but the process lives in run-kyc-audit.ts. test/kyc-audit-cli.test.ts runs
// this file in a child process: its source in the workspace, its build as installed in the packed suites.
process.exitCode = await runKycAudit(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
});
