import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { OtelApi } from './load-api.js';

/** Options of the receiver's OpenTelemetry instrumentation. */
export interface ReceiverTelemetryOptions {
  /** The `@opentelemetry/api` module, for runtimes that cannot load it by name (Workers): `import * as api from '@opentelemetry/api'`. */
  readonly api?: OtelApi;
  /** Where spans go (default: the global provider). */
  readonly tracerProvider?: TracerProvider;
  /** Where metrics go (default: the global provider). */
  readonly meterProvider?: MeterProvider;
}
