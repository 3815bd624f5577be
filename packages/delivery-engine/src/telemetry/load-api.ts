import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module, as the engine uses it. */
export type OtelApi = typeof OpenTelemetryApi;

// Held in a variable so bundlers leave the import alone: the package is an optional peer, and
// a bundle made without it must still load (the import then fails here, at run time, quietly).
const API_MODULE = '@opentelemetry/api';

let loading: Promise<OtelApi | undefined> | undefined;

/**
 * Loads `@opentelemetry/api` once per process if it is installed; `undefined` when it is not.
 * Every other failure (a broken install) is also treated as absent: telemetry must never stop
 * webhooks from being sent.
 */
export function loadOpenTelemetryApi(): Promise<OtelApi | undefined> {
  loading ??= import(/* @vite-ignore */ API_MODULE).then(
    (module: OtelApi & { default?: OtelApi }) => (typeof module.trace === 'object' ? module : module.default),
    () => undefined,
  );
  return loading;
}
