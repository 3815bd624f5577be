export { createTestCertificate, type TestCertificate } from './certificates.js';
export { type NodeRuntime, nodeRuntimes } from './node-runtimes.js';
export { type RecordedDecision, receiverExampleSuite, type StartExample } from './receiver-example-suite.js';
export {
  CHROMIUM_PATH,
  chromiumAvailable,
  POSTGRES_URL,
  postgresAvailable,
  REDIS_URL,
  redisAvailable,
  servicesRequired,
} from './services.js';
