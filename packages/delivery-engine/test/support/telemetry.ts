import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** A reader that collects only when a test asks: the real SDK pipeline, no timer. */
class OnDemandReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** One metric point as a test reads it. */
export interface Point {
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly value: number | Histogram;
}

/**
 * A real OpenTelemetry SDK (tracer and meter providers, in-memory span exporter, an
 * AsyncLocalStorage context manager registered globally so the caller's active span is seen).
 */
export function createTestTelemetry() {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });

  async function collect(): Promise<ResourceMetrics> {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw new Error(`metric collection failed: ${errors.map(String).join('; ')}`);
    return resourceMetrics;
  }

  return {
    tracerProvider,
    meterProvider,
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    collect,
    /** The points of metric `name` (empty when it has none). */
    async points(name: string): Promise<Point[]> {
      const metrics = await collect();
      for (const scope of metrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name !== name) continue;
          return (metric.dataPoints as DataPoint<number | Histogram>[]).map((p) => ({
            attributes: p.attributes,
            value: p.value,
          }));
        }
      }
      return [];
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      context.disable();
    },
  };
}

export type TestTelemetry = ReturnType<typeof createTestTelemetry>;

/** The value of the point whose attributes match `where`, or 0. */
export function pointValue(points: readonly Point[], where: Readonly<Record<string, unknown>> = {}): number {
  const point = points.find((p) => Object.entries(where).every(([k, v]) => p.attributes[k] === v));
  if (point === undefined) return 0;
  return typeof point.value === 'number' ? point.value : point.value.count;
}
