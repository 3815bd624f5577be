import {
  type MeterProvider as ApiMeterProvider,
  type TracerProvider as ApiTracerProvider,
  context,
  metrics,
  propagation,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { type IMetricReader, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  type SpanExporter,
  type SpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/** The sandbox's OpenTelemetry SDK: where spans and metrics go, and the `/metrics` scrape. */
export interface SandboxTelemetry {
  readonly tracerProvider: ApiTracerProvider;
  readonly meterProvider: ApiMeterProvider;
  /** The current metrics in the Prometheus text exposition format. */
  scrape(): Promise<string>;
  /** Which exporters were configured from the environment, for the start banner. */
  readonly exporters: { readonly traces: readonly string[]; readonly metrics: readonly string[] };
  /** Flushes pending exports and unregisters the global providers. */
  shutdown(): Promise<void>;
}

/** Options of {@link startTelemetry}. */
export interface StartTelemetryOptions {
  /** Where `OTEL_*` settings are read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Extra span processors, e.g. an in-memory exporter in tests. */
  readonly spanProcessors?: readonly SpanProcessor[];
  /** Told about settings that were ignored (an unknown exporter name). */
  readonly warn?: (message: string) => void;
}

/** The exposition format version Prometheus expects of text scrapes. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const list = (value: string | undefined): string[] | undefined =>
  value === undefined || value.trim() === ''
    ? undefined
    : value
        .split(',')
        .map((part) => part.trim().toLowerCase())
        .filter((part) => part !== '');

/**
 * Starts the OpenTelemetry SDK for the sandbox process and registers it globally (context
 * manager, W3C propagators, tracer and meter providers). Configured by the standard variables:
 * `OTEL_SDK_DISABLED`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_EXPORTER`
 * and `OTEL_METRICS_EXPORTER` (`otlp`, `console`, `none`), and the `OTEL_EXPORTER_OTLP_*`
 * endpoint, header and timeout variables, which the OTLP exporters read themselves. Metrics are
 * always kept for the `/metrics` scrape. Returns `undefined` when `OTEL_SDK_DISABLED=true`.
 *
 * One difference from the specification's defaults: without `OTEL_TRACES_EXPORTER` and without
 * an OTLP endpoint, nothing is exported (rather than OTLP to localhost:4318), so a laptop with
 * no collector does not log an export error every five seconds.
 *
 * @example
 * ```ts
 * const telemetry = startTelemetry(); // OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318
 * const running = await startSandbox({ dataDir, telemetry });
 * ```
 */
export function startTelemetry(options: StartTelemetryOptions = {}): SandboxTelemetry | undefined {
  const env = options.env ?? process.env;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const otlpConfigured = (signal: 'TRACES' | 'METRICS') =>
    env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`] !== undefined;

  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'kyc-sandbox' }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the defaults above.
    .merge(detectResources({ detectors: [envDetector] }));

  const traceNames = list(env.OTEL_TRACES_EXPORTER) ?? (otlpConfigured('TRACES') ? ['otlp'] : []);
  const exporters: SpanExporter[] = [];
  for (const name of traceNames) {
    if (name === 'otlp') exporters.push(new OTLPTraceExporter());
    else if (name === 'console') exporters.push(new ConsoleSpanExporter());
    else if (name !== 'none')
      options.warn?.(`OTEL_TRACES_EXPORTER: "${name}" is not supported here; use otlp, console or none`);
  }
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: [
      ...exporters.map((exporter) => new BatchSpanProcessor({ exporter })),
      ...(options.spanProcessors ?? []),
    ],
  });

  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const readers: IMetricReader[] = [prometheus];
  const metricNames = list(env.OTEL_METRICS_EXPORTER) ?? (otlpConfigured('METRICS') ? ['otlp'] : []);
  for (const name of metricNames) {
    if (name === 'otlp') {
      // Without a valid OTEL_METRIC_EXPORT_INTERVAL the reader keeps its own default (60 s, as the spec says).
      const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
      const exporter = new OTLPMetricExporter();
      readers.push(
        new PeriodicExportingMetricReader(
          Number.isFinite(interval) && interval > 0 ? { exporter, exportIntervalMillis: interval } : { exporter },
        ),
      );
    } else if (name !== 'prometheus' && name !== 'none') {
      options.warn?.(`OTEL_METRICS_EXPORTER: "${name}" is not supported here; use otlp, prometheus or none`);
    }
  }
  const meterProvider = new MeterProvider({ resource, readers });
  const serializer = new PrometheusSerializer();

  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);

  return {
    tracerProvider,
    meterProvider,
    exporters: {
      traces: traceNames.filter((name) => name !== 'none'),
      metrics: ['prometheus (/metrics)', ...metricNames.filter((name) => name === 'otlp')],
    },
    async scrape() {
      const { resourceMetrics, errors } = await prometheus.collect();
      // A failed observable callback (the store did not answer) leaves its gauges out; the rest is served.
      void errors;
      return serializer.serialize(resourceMetrics);
    },
    async shutdown() {
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}
