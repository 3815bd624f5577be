import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module, as the receiver uses it. */
export type OtelApi = typeof OpenTelemetryApi;

// The package is an optional peer, and a bundle made without it must still load: the name is
// held in a variable so that no bundler tries to resolve it, and the comments tell the ones that
// would warn about an import they cannot follow to leave it alone (webpack and Turbopack, as in
// `next build`: "Critical dependency: the request of a dependency is an expression"; Vite: "cannot
// be analyzed"). On a runtime that cannot import a bare name at run time (Workers), the import
// fails here, quietly, and the receiver runs uninstrumented unless `telemetry.api` is given.
const API_MODULE = '@opentelemetry/api';

let loading: Promise<OtelApi | undefined> | undefined;

/** Loads `@opentelemetry/api` once if it can be; `undefined` when it is absent or broken. */
export function loadOpenTelemetryApi(): Promise<OtelApi | undefined> {
  loading ??= import(/* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ API_MODULE).then(
    (module: OtelApi & { default?: OtelApi }) => (typeof module.trace === 'object' ? module : module.default),
    () => undefined,
  );
  return loading;
}
