import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleStatusWebhook } from '@kyc/contracts';
import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type AuditEntry, type AuditOptions, auditTrail } from '../src/audit.js';
import { jsonlAuditSink, listAuditFiles } from '../src/audit-file.js';
import { createWebhookReceiver } from '../src/index.js';
import { createAuditTable, postgresAuditSink } from '../src/postgres.js';
import { createTestRequest } from '../src/testing.js';
import { AUTH_KEY } from './support/receiver-table.js';

const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

// The command as a user runs it: the `kyc-audit` bin that the package's manifest declares, found
// the way Node finds the package, run in its own process by the runtime running this suite. In
// the packed suites that is the installed tarball's build. In the workspace it is the bin's
// source (tsdown builds dist/kyc-audit.js from src/cli/kyc-audit.ts) run with tsx, so that,
// like every workspace test, it tests the current sources and never a stale build
// (check:package runs the build itself).
const manifestPath = createRequire(import.meta.url).resolve('@kyc/webhook-receiver/package.json');
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: Record<string, string> };
const bin = join(dirname(manifestPath), manifest.bin['kyc-audit'] as string);
const installed = manifestPath.split(sep).includes('node_modules');
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
const source = join(dirname(manifestPath), 'src', 'cli', `${basename(bin, '.js')}.ts`);
const runtime = !installed
  ? [tsx, '--conditions=@kyc/source', source]
  : process.versions.deno
    ? [process.execPath, 'run', '--allow-all', bin]
    : [process.execPath, bin];

/** Runs `kyc-audit` in a child process; resolves with its exit status and output. */
function kycAudit(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const [command, ...prefix] = runtime as [string, ...string[]];
  // The command reads KYC_AUDIT_DATABASE_URL: the tests give their connection strings explicitly.
  const { KYC_AUDIT_DATABASE_URL: _url, ...env } = process.env;
  return new Promise((resolve, reject) => {
    execFile(command, [...prefix, ...args], { env, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : error.code;
      if (typeof code !== 'number') reject(error);
      else resolve({ code, stdout: stdout.trimEnd(), stderr: stderr.trimEnd() });
    });
  });
}

/** A receiver writing `count` processed deliveries to the sink. */
async function deliver(sink: AuditOptions | undefined, count: number) {
  const receiver = createWebhookReceiver({
    authKeys: AUTH_KEY,
    onEvent: () => undefined,
    logger: {},
    ...(sink ? { audit: auditTrail(sink) } : {}),
  });
  for (let index = 0; index < count; index++) {
    const request = createTestRequest({ payload: sampleStatusWebhook, authKey: AUTH_KEY, webhookId: `evt_${index}` });
    expect((await receiver.handle(request)).status).toBe(200);
  }
}

describe('kyc-audit verify finds the first broken entry in a tampered file', () => {
  async function logOfTen() {
    const directory = await mkdtemp(join(tmpdir(), 'kyc-audit-cli-'));
    directories.push(directory);
    const sink = jsonlAuditSink({ directory });
    await deliver({ sink }, 10);
    await sink.close();
    const [file] = await listAuditFiles(directory, 'webhook-audit');
    const path = join(directory, file?.name as string);
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    const write = (changed: string[]) => writeFile(path, `${changed.join('\n')}\n`);
    return { directory, path, lines, write };
  }

  it('an edited line', async () => {
    const log = await logOfTen();
    await log.write(log.lines.map((line, index) => (index === 6 ? line.replace('"evt_6"', '"evt_X"') : line)));
    const { code, stdout } = await kycAudit('verify', log.path);
    expect(code).toBe(1);
    expect(stdout).toContain(`broken at ${log.path}:7 (seq 7)`);
    expect(stdout).toContain('[hash_mismatch]');
  });

  it('a deleted line', async () => {
    const log = await logOfTen();
    await log.write(log.lines.filter((_line, index) => index !== 3));
    const { code, stdout } = await kycAudit('verify', log.path);
    expect(code).toBe(1);
    expect(stdout).toContain(`broken at ${log.path}:4 (seq 5)`);
    expect(stdout).toContain('[broken_link]');
  });

  it('reordered lines', async () => {
    const log = await logOfTen();
    const swapped = [...log.lines];
    [swapped[1], swapped[2]] = [swapped[2] as string, swapped[1] as string];
    await log.write(swapped);
    const { code, stdout } = await kycAudit('verify', log.path);
    expect(code).toBe(1);
    expect(stdout).toContain(`broken at ${log.path}:2 (seq 3)`);
  });

  it('a cut-off end, against the head recorded elsewhere', async () => {
    const log = await logOfTen();
    const last = JSON.parse(log.lines[9] as string) as AuditEntry;
    const head = `${last.seq}:${last.hash}`;
    expect((await kycAudit('verify', log.path, '--head', head)).code).toBe(0);
    await truncate(log.path, Buffer.byteLength(`${log.lines.slice(0, 8).join('\n')}\n`));
    expect((await kycAudit('verify', log.path)).code).toBe(0);
    const { code, stdout } = await kycAudit('verify', log.path, '--head', head);
    expect(code).toBe(1);
    expect(stdout).toContain('[head_mismatch]');
  });

  it('usage errors exit 2 and say what is wrong', async () => {
    expect(await kycAudit('verify')).toMatchObject({ code: 2 });
    expect(await kycAudit('erase', 'x')).toMatchObject({ code: 2 });
    expect((await kycAudit('help')).stdout).toContain('Usage:');
    const bad = await kycAudit('verify', '/nonexistent', '--head', 'nope');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--head must be <seq>:<64 lower-case hex digits>');
  });
});

describe.skipIf(!(await postgresAvailable()))('kyc-audit verify --postgres', () => {
  it("verifies a table, and never prints the connection string's password", async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
    const tableName = `kyc_audit_cli_${process.pid}`;
    try {
      await createAuditTable(pool, { tableName });
      await deliver({ sink: postgresAuditSink(pool, { tableName }) }, 5);
      const { code, stdout } = await kycAudit('verify', '--postgres', POSTGRES_URL, '--table', tableName);
      expect(stdout).toContain(`intact: 5 entries in table ${tableName}`);
      expect(code).toBe(0);
      const wrong = await kycAudit('verify', '--postgres', 'postgres://auditor:s3cret-pass-9981@127.0.0.1:1/none');
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(/^kyc-audit: /);
      expect(wrong.stderr).not.toContain('s3cret-pass-9981');
    } finally {
      await pool.query(`DROP TABLE IF EXISTS "${tableName}" CASCADE`);
      await pool.query(`DROP FUNCTION IF EXISTS "${tableName}_append_only"() CASCADE`);
      await pool.end();
    }
  });
});
