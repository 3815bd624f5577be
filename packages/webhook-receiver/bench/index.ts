import { runHttp } from './http.js';
import { runMicro } from './micro.js';

// Run under `flock /tmp/kyc-bench.lock pnpm bench` so two benchmarks never share the CPUs.
// `pnpm bench micro` / `pnpm bench http` / `pnpm bench size` run one part.
const only = process.argv[2];
console.log(`# @kyc/webhook-receiver bench — node ${process.version}`);
if (only === undefined || only === 'micro') await runMicro();
if (only === undefined || only === 'http') await runHttp();
if (only === undefined || only === 'size') {
  const { bundleReport } = await import('../test/support/bundle-size.js');
  console.log('\n## Bundle (esbuild, minified + gzip)');
  for (const names of [['verifyAuthorization'], ['createWebhookReceiver']]) {
    console.log(`${names.join(', ').padEnd(40)} ${(await bundleReport(names)).gzipBytes} B`);
  }
}
