import { fork } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestCertificate } from '@kyc/test-support';

interface Sample {
  readonly rss: number;
  readonly heap: number;
  readonly fds: number;
}

const ORIGINS = 256;

/**
 * What an attempt in the slow lane costs (issue 40): a fresh engine process over the built
 * package sends 4 attempts to each of 256 endpoints that accept the request and never answer (a
 * full slow lane at the defaults), and reports RSS, heap after a full collection and open
 * descriptors before and while they wait.
 */
export async function hungAttemptsSection(dir: string): Promise<void> {
  const tls = await createTestCertificate(['*.hang.test']);
  const caFile = join(dir, 'hang-ca.pem');
  writeFileSync(caFile, tls.cert);
  const server = createServer({ key: tls.key, cert: tls.cert }, (req) => req.resume());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const child = fork(
      fileURLToPath(new URL('./hung-attempts-process.mjs', import.meta.url)),
      [String(ORIGINS), String((server.address() as AddressInfo).port), caFile],
      { execArgv: ['--expose-gc'] },
    );
    const [result] = (await once(child, 'message')) as [{ hung: number; before: Sample; after: Sample }];
    await once(child, 'exit');
    const { hung, before, after } = result;
    const per = (key: keyof Sample, unit: number) =>
      ((after[key] - before[key]) / hung / unit).toFixed(key === 'fds' ? 2 : 1);
    console.log(
      `\n## Attempts in the slow lane: ${hung} hanging at once (${ORIGINS} endpoints × 4), fresh process, built package\n` +
        `per attempt: RSS ${per('rss', 1024)} KB, heap after GC ${per('heap', 1024)} KB, ${per('fds', 1)} descriptors ` +
        `(RSS ${(before.rss / 2 ** 20).toFixed(0)} → ${(after.rss / 2 ** 20).toFixed(0)} MB, descriptors ${before.fds} → ${after.fds})`,
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
