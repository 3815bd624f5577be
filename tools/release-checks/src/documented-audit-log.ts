import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where docs/audit.md's receiver keeps its log, and what `kyc-audit verify` is shown reading. */
export const DOCUMENTED_AUDIT_DIR = '/var/lib/kyc/audit';

/**
 * The receiver of docs/audit.md's example (`auditTrail` over `jsonlAuditSink` in the documented
 * directory), run from the consumer's installed tarballs: requests that carry no Auth Key are
 * answered 401 and, like every request that reaches the receiver, recorded.
 */
const RECEIVER = `
import { createWebhookReceiver } from '@kyc/webhook-receiver';
import { auditTrail } from '@kyc/webhook-receiver/audit';
import { jsonlAuditSink } from '@kyc/webhook-receiver/audit-file';

const sink = jsonlAuditSink({ directory: ${JSON.stringify(DOCUMENTED_AUDIT_DIR)} });
const receiver = createWebhookReceiver({
  authKeys: [process.env.KYC_AUTH_KEY],
  onEvent: async () => {},
  audit: auditTrail({ sink, authKeyLabels: ['2026-q4'] }),
});
const statuses = [];
for (let i = 0; i < Number(process.argv[2]); i++) {
  const request = new Request('http://127.0.0.1:3000/webhooks/kyc', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'webhook-id': 'evt_' + i, 'webhook-attempt': '1' },
    body: JSON.stringify({ sessionId: 'sess_' + i }),
  });
  statuses.push((await receiver.handle(request)).status);
}
await sink.close();
process.stdout.write(JSON.stringify(statuses));
`;

/**
 * Writes `count` entries to the documented directory through the documented receiver, and
 * returns the answers' statuses and a cleanup. It refuses a directory that already exists: that
 * would be a real log, and the test must neither read it as its own nor remove it.
 */
export function writeDocumentedAuditLog(project: string, count: number): { statuses: number[]; remove: () => void } {
  if (existsSync(DOCUMENTED_AUDIT_DIR)) {
    throw new Error(`${DOCUMENTED_AUDIT_DIR} already exists: the test writes its own log there and removes it`);
  }
  // The reader creates the directory (the sink writes files in it); so does the test, and
  // removes only what it made.
  const parent = '/var/lib/kyc';
  const madeParent = !existsSync(parent);
  mkdirSync(DOCUMENTED_AUDIT_DIR, { recursive: true });
  const remove = () => rmSync(madeParent ? parent : DOCUMENTED_AUDIT_DIR, { recursive: true, force: true });
  try {
    const script = join(project, 'documented-audit-receiver.mjs');
    writeFileSync(script, RECEIVER);
    const env = { ...process.env, KYC_AUTH_KEY: randomBytes(24).toString('hex') };
    const output = execFileSync(process.execPath, [script, String(count)], { cwd: project, env, encoding: 'utf8' });
    return { statuses: JSON.parse(output) as number[], remove };
  } catch (error) {
    remove();
    throw error;
  }
}
