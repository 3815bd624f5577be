import { parseTraceparent } from '@kyc/delivery-engine';
import { trace } from '@opentelemetry/api';
import type { SandboxLogger } from '../sandbox-options.js';

type Level = 'info' | 'warn' | 'error';

/**
 * A logger writing one JSON object per line: `time`, `level`, `msg`, the fields, and the
 * `trace_id` / `span_id` of the active span (or of the fields' `traceParent`), so a log line
 * leads to its trace. Messages and fields are the sandbox's own, which never hold a secret.
 *
 * @example
 * ```ts
 * startSandbox({ dataDir, logger: jsonLogger((line) => process.stdout.write(line)) });
 * // {"time":"2026-11-22T06:00:00.000Z","level":"info","msg":"webhook …","trace_id":"4bf9…","span_id":"00f0…"}
 * ```
 */
export function jsonLogger(write: (line: string) => void, now: () => Date = () => new Date()): SandboxLogger {
  const log = (level: Level) => (message: string, fields?: Readonly<Record<string, unknown>>) => {
    const entry: Record<string, unknown> = { time: now().toISOString(), level, msg: message };
    const span = trace.getActiveSpan()?.spanContext();
    const given = typeof fields?.traceParent === 'string' ? parseTraceparent(fields.traceParent) : undefined;
    if (fields !== undefined) {
      for (const [key, value] of Object.entries(fields)) if (key !== 'traceParent') entry[key] = value;
    }
    const ids = given ?? (span !== undefined && span.traceId !== '0'.repeat(32) ? span : undefined);
    if (ids !== undefined) {
      entry.trace_id = ids.traceId;
      entry.span_id = ids.spanId;
    }
    write(`${safeStringify(entry)}\n`);
  };
  return { info: log('info'), warn: log('warn'), error: log('error') };
}

function safeStringify(entry: Record<string, unknown>): string {
  try {
    return JSON.stringify(entry);
  } catch {
    // A field that cannot be serialised (a cycle) must not lose the line.
    return JSON.stringify({ time: entry.time, level: entry.level, msg: entry.msg, trace_id: entry.trace_id });
  }
}
