import { Hono } from 'hono';
import { PROMETHEUS_CONTENT_TYPE, type SandboxTelemetry } from './start-telemetry.js';

/** What `/readyz` reports. */
export interface Readiness {
  readonly ready: boolean;
  /** Why not, in a few words (absent when ready). */
  readonly reason?: string;
  readonly checks: Readonly<Record<string, 'ok' | 'failing'>>;
}

/**
 * The routes an orchestrator and a Prometheus server call, outside any login: `/healthz`
 * (the process answers), `/readyz` (stores answer, migrations applied, delivery loop running;
 * 503 with the reason otherwise) and `/metrics` (Prometheus text format). None of them reveals
 * a session, a company or a key; expose them to your internal network only.
 */
export function opsRoutes(readiness: () => Promise<Readiness>, telemetry: SandboxTelemetry | undefined): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const result = await readiness();
    return c.json({ status: result.ready ? 'ready' : 'unavailable', ...result }, result.ready ? 200 : 503);
  });
  app.get('/metrics', async (c) => {
    if (telemetry === undefined) {
      return c.text(
        'metrics are off: start the sandbox with telemetry (kyc-sandbox start does, unless OTEL_SDK_DISABLED=true)\n',
        404,
      );
    }
    return c.body(await telemetry.scrape(), 200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE });
  });
  return app;
}
