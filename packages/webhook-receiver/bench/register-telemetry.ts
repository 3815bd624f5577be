// Preloaded with `--import` in the "SDK registered" case, the way an application loads its
// instrumentation file before anything else.
import { registerInMemoryTelemetry } from '@kyc/test-support/in-memory-telemetry';

registerInMemoryTelemetry();
