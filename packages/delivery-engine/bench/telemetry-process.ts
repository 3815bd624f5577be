/**
 * One SQLite throughput run in a process of its own, so that each OpenTelemetry case starts
 * clean: `absent` runs under `--import @kyc/test-support/hide-opentelemetry` (the optional peer
 * not installed), `api` with the API installed and no SDK (the default), `sdk` with a real SDK
 * registered globally that exports to memory. Replies with deliveries/s and CPU µs per
 * delivery over IPC.
 */
import { sqliteThroughput } from './sqlite-throughput.js';

const config = JSON.parse(process.env.KYC_BENCH_TELEMETRY ?? '{}') as {
  mode: 'absent' | 'api' | 'sdk';
  url: string;
  ca: string;
  body: string;
  path: string;
  events: number;
  concurrency: number;
};
// Imported only when used: in the `absent` case the SDK's own import of the API would fail.
const sdk =
  config.mode === 'sdk'
    ? (await import('@kyc/test-support/in-memory-telemetry')).registerInMemoryTelemetry()
    : undefined;
// CPU time of this process over the deliveries (engine, SQLite, TLS, the SDK): on a shared
// machine a neighbour's load lowers deliveries/s much more than it changes the CPU each costs.
const { rate, cpuUsPerDelivery: cpuUs } = await sqliteThroughput(config);
const spans = sdk?.spans.getFinishedSpans().length;
await sdk?.shutdown();
process.send?.({ rate, cpuUs, spans }, () => process.exit(0));
