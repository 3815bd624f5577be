import { parseArgs } from 'node:util';
import { nodeSha256 } from '../audit/node-sha256.js';
import { readPostgresAuditLog } from '../audit/read-postgres-audit-log.js';
import type { AuditHead } from '../audit/types.js';
import { verifyAuditFiles } from '../audit/verify-audit-files.js';
import { type AuditVerification, verifyAuditLog } from '../audit/verify-audit-log.js';

const USAGE = `Usage:
  kyc-audit verify <file-or-directory>... [--head <seq>:<hash>] [--after <seq>:<hash>] [--prefix <name>]
  kyc-audit verify --postgres <connection-string> [--table <name>] [--head <seq>:<hash>]

Walks a webhook audit log and reports the first entry where its hash chain breaks.
  --head    the head you recorded elsewhere: also catches entries cut off the end
  --after   the head of the entries before the first file (when older files are archived)
  --prefix  file name prefix inside directories (default webhook-audit)
  --postgres may also come from KYC_AUDIT_DATABASE_URL.
Exit status: 0 intact, 1 broken, 2 the log could not be read or the command is wrong.`;

class UsageError extends Error {}

function headOf(text: string | undefined, name: string): AuditHead | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+):([0-9a-f]{64})$/.exec(text);
  if (match === null) throw new UsageError(`--${name} must be <seq>:<64 lower-case hex digits>`);
  return { seq: Number(match[1]), hash: match[2] as string };
}

/** A connection string's password never reaches the terminal, even inside a driver's message. */
function redactUrl(message: string, url: string | undefined): string {
  if (url === undefined) return message;
  let result = message.replaceAll(url, '<connection string>');
  try {
    const password = decodeURIComponent(new URL(url).password);
    if (password.length > 0) result = result.replaceAll(password, '[redacted]');
  } catch {
    // Not a URL (a key=value string): the whole string was replaced above.
  }
  return result;
}

async function verifyPostgres(url: string, table: string | undefined, expectedHead: AuditHead | undefined) {
  let Pool: typeof import('pg').Pool;
  try {
    ({ Pool } = (await import('pg')).default);
  } catch {
    throw new UsageError('--postgres needs the "pg" package: npm install pg');
  }
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    return await verifyAuditLog(readPostgresAuditLog(pool, table === undefined ? {} : { tableName: table }), {
      sha256: nodeSha256,
      ...(expectedHead === undefined ? {} : { expectedHead }),
    });
  } finally {
    await pool.end();
  }
}

/** Where the command writes, and the environment it reads: the real ones, or a test's. */
export interface KycAuditIo {
  out(line: string): void;
  err(line: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
}

function report(out: KycAuditIo['out'], result: AuditVerification & { file?: string }, where: string): number {
  if (result.ok) {
    const head = result.head === undefined ? 'empty log' : `head ${result.head.seq}:${result.head.hash}`;
    out(`intact: ${result.count} entries in ${where}; ${head}`);
    return 0;
  }
  const at = result.file === undefined ? `entry ${result.position}` : `${result.file}:${result.position}`;
  const seq = result.seq === undefined ? '' : ` (seq ${result.seq})`;
  out(`broken at ${at}${seq}: ${result.message} [${result.reason}]; ${result.verified} entries verified before it`);
  return 1;
}

async function main(argv: readonly string[], { out, env }: KycAuditIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      head: { type: 'string' },
      after: { type: 'string' },
      prefix: { type: 'string', default: 'webhook-audit' },
      postgres: { type: 'string' },
      table: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true || positionals[0] === 'help') {
    out(USAGE);
    return 0;
  }
  const [command, ...paths] = positionals;
  if (command !== 'verify')
    throw new UsageError(command === undefined ? 'a command is required' : `unknown command "${command}"`);
  const expectedHead = headOf(values.head, 'head');
  const after = headOf(values.after, 'after');
  const url = values.postgres ?? (paths.length === 0 ? env.KYC_AUDIT_DATABASE_URL : undefined);
  if (url !== undefined) {
    if (paths.length > 0) throw new UsageError('give files or --postgres, not both');
    try {
      return report(
        out,
        await verifyPostgres(url, values.table, expectedHead),
        `table ${values.table ?? 'kyc_webhook_audit'}`,
      );
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new Error(redactUrl(error instanceof Error ? error.message : String(error), url));
    }
  }
  if (paths.length === 0) throw new UsageError('give at least one file or directory, or --postgres');
  const result = await verifyAuditFiles(paths, {
    prefix: values.prefix,
    ...(after === undefined ? {} : { after }),
    ...(expectedHead === undefined ? {} : { expectedHead }),
  });
  return report(out, result, paths.join(', '));
}

/**
 * The `kyc-audit` command: resolves with its exit status (0 intact, 1 broken, 2 unreadable or
 * a wrong command), writing its report to `io`. Never throws.
 */
export async function runKycAudit(argv: readonly string[], io: KycAuditIo): Promise<number> {
  try {
    return await main(argv, io);
  } catch (error) {
    io.err(`kyc-audit: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof UsageError || (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      io.err(`\n${USAGE}`);
    return 2;
  }
}
