import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KycClient } from '@kyc/client';
import { VERIFICATION_STATUSES, type VerificationStatus } from '@kyc/contracts';
import { generateAuthKey } from '@kyc/delivery-engine';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startDemoSandbox } from './demo/demo-sandbox.js';
import { startExampleReceiver } from './demo/example-receiver.js';
import { createTimeline } from './demo/timeline.js';
import { traceTree } from './demo/trace-tree.js';
import { PAYLOAD_SHAPES } from './domain/enum-values.js';
import { selfSignedCertificate } from './server/certificate.js';
import { startTelemetry } from './telemetry/start-telemetry.js';

/** The schedule runs 60× faster in the demo: the first retry comes 1 s after a failure instead of 1 min. */
const DEMO_TIME_SCALE = 60;
const DEMO_DEADLINE_MS = 50_000;

/** What {@link runDemo} proved; `ok` when every expectation held. */
export interface DemoResult {
  readonly ok: boolean;
  readonly problems: readonly string[];
  readonly timeline: readonly string[];
}

const printLine = (line: string) => {
  process.stdout.write(`${line}\n`);
};

/**
 * The whole flow on loopback: a sandbox and an example HTTPS receiver, a company configured
 * with the receiver's URL and a generated Auth Key, four flows (one per status) finished
 * through `@kyc/client`, one delivery failed on purpose and retried on a compressed schedule,
 * one redelivered by hand and recognised as a duplicate.
 */
export async function runDemo(write: (line: string) => void = printLine): Promise<DemoResult> {
  const timeline = createTimeline(write);
  const problems: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'kyc-sandbox-demo-'));
  const authKey = generateAuthKey();
  const tls = await selfSignedCertificate(['127.0.0.1', 'localhost']);
  const sessionIds = new Map<VerificationStatus, string>();
  const failStatus: VerificationStatus = VERIFICATION_STATUSES[1] ?? VERIFICATION_STATUSES[0];
  // The receiver's own client for the service (it confirms v1 events); set once the sandbox listens.
  let receiverClient: KycClient | undefined;
  const receiver = await startExampleReceiver({
    authKey,
    tls,
    timeline,
    failOnce: () => sessionIds.get(failStatus),
    details: (detailsUrl) => {
      if (!receiverClient) throw new Error('the sandbox is not running yet');
      return receiverClient.getSessionByDetailsUrl(detailsUrl);
    },
  });
  timeline.add('receiver', `example receiver (@kyc/webhook-receiver) listening on ${receiver.url}`);
  // The SDK the sandbox ships with, for this process: spans are kept in memory to draw one trace
  // at the end, and also go wherever OTEL_* say (a local Jaeger shows the same trace).
  const spans = new InMemorySpanExporter();
  const telemetry = startTelemetry({
    spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
    warn: (message) => timeline.add('demo', `telemetry: ${message}`),
  });
  const sandbox = await startDemoSandbox({
    dataDir,
    timeScale: DEMO_TIME_SCALE,
    trustedCa: tls.cert,
    timeline,
    telemetry,
  });
  const deadline = AbortSignal.timeout(DEMO_DEADLINE_MS);
  try {
    await sandbox.configure(receiver.url, authKey);
    timeline.add(
      'sandbox',
      `company configured: Webhook URL ${receiver.url}, Auth Key generated (${authKey.length} characters, not shown)`,
    );
    const client = new KycClient({ baseUrl: sandbox.url, username: sandbox.username, password: sandbox.password });
    receiverClient = client;
    for (const [index, status] of VERIFICATION_STATUSES.entries()) {
      const shape = PAYLOAD_SHAPES[index % PAYLOAD_SHAPES.length] ?? 'both';
      const id = await sandbox.createSession(status, shape);
      sessionIds.set(status, id);
      timeline.add('sandbox', `session ${id} created, will end ${status} (payload shape: ${shape})`);
    }
    for (const id of sessionIds.values()) {
      const details = await client.finishSession(id);
      timeline.add('client', `finishSession(${id}) → 200, state ${details.state}, status ${details.status ?? '-'}`);
    }
    const [firstStatus, firstId] = [...sessionIds][0] ?? [];
    if (firstId) {
      const again = await client.finishSession(firstId);
      timeline.add(
        'client',
        `finishSession(${firstId}) again → 200, same details (${again.status ?? firstStatus}); no second webhook`,
      );
    }
    await sandbox.waitForDeliveries([...sessionIds.values()], 1, deadline);
    const retried = await sandbox.delivery(sessionIds.get(failStatus) ?? '');
    timeline.add(
      'engine',
      `delivery of the ${failStatus} session: ${retried.attempts.map((a) => `#${a.attempt} ${a.outcome}${a.status ? ` ${a.status}` : ''}`).join(', ')}`,
    );
    if (retried.attempts.length < 2) problems.push('the failed delivery was not retried');
    if (telemetry !== undefined) {
      const tree = traceTree(spans.getFinishedSpans(), sessionIds.get(failStatus) ?? '');
      timeline.add('trace', `the ${failStatus} session, from finishSession to the receiver's handler, as one trace:`);
      for (const line of tree.lines) timeline.add('trace', line);
      problems.push(...tree.problems);
    }
    if (firstId) {
      const first = await sandbox.delivery(firstId);
      await sandbox.redeliver(first.eventId);
      timeline.add('sandbox', `Redeliver pressed for ${firstId} (Webhook-Id ${first.eventId})`);
      await sandbox.waitForDeliveries([firstId], 2, deadline);
      if (!receiver.log.duplicates.includes(first.eventId)) problems.push('the redelivery was not seen as a duplicate');
    }
    for (const [status, id] of sessionIds) {
      const runs = receiver.log.handled.filter((handled) => handled === id).length;
      const expected = status === failStatus ? 2 : 1;
      if (runs !== expected) problems.push(`handler ran ${runs}× for ${status} session ${id} (expected ${expected})`);
    }
  } catch (error) {
    problems.push(`demo failed: ${(error as Error).message}`);
  } finally {
    await sandbox.close();
    await receiver.close();
    await telemetry?.shutdown();
    rmSync(dataDir, { recursive: true, force: true });
    // The sandbox's secrets key file sits beside its data folder.
    rmSync(`${dataDir}.key`, { force: true });
  }
  timeline.add('demo', problems.length === 0 ? 'done: every expectation held' : `FAILED: ${problems.join('; ')}`);
  return { ok: problems.length === 0, problems, timeline: timeline.lines };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  printLine('KYC webhooks demo: sandbox + example receiver on loopback, retry schedule 60× faster\n');
  runDemo().then(
    (result) => {
      process.exitCode = result.ok ? 0 : 1;
    },
    (error: unknown) => {
      process.stderr.write(`demo failed: ${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
