#!/usr/bin/env node
import { runKycAudit } from './run-kyc-audit.js';

// The bin: everything but the process lives in run-kyc-audit.ts, which the tests call directly.
process.exitCode = await runKycAudit(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
});
