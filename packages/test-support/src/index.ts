export { createTestCertificate, type TestCertificate } from './certificates.js';
export {
  type ContractChecker,
  type ContractVerdict,
  createContractChecker,
  type SeenRequest,
  type SeenResponse,
  type SeenWebhook,
} from './contract/contract-checker.js';
export { type ContractRecorder, createContractRecorder } from './contract/contract-recorder.js';
export { inboxExampleSuite, type StartedInboxExample, type StartInboxExample } from './inbox-example-suite.js';
export { type NodeRuntime, nodeRuntimes } from './node-runtimes.js';
export { postgresCpuUs, processCpuUs } from './process-cpu.js';
export { type ProcessExampleOptions, startProcessExample } from './process-example.js';
export {
  type RecordedDecision,
  receiverExampleSuite,
  type StartExample,
  type StartedExample,
} from './receiver-example-suite.js';
export { type RuntimeName, runtimeBinary } from './runtime-binary.js';
export { findSecrets, SECRET_PIECE_LENGTH, type SecretFinding } from './secret-scan.js';
export {
  CHROMIUM_PATH,
  chromiumAvailable,
  MYSQL_URL,
  mysqlAvailable,
  POSTGRES_URL,
  postgresAvailable,
  REDIS_URL,
  redisAvailable,
  servicesRequired,
} from './services.js';
