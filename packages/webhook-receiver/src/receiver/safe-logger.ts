import type { LogFields, ReceiverLogger } from './types.js';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
const REDACTED = '[redacted]';

function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.replaceAll(secret, REDACTED);
  return result;
}

function redactValue(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (depth > 4 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, redactValue(item, secrets, depth + 1)]));
}

/**
 * Wraps the user's logger so that logging can neither change an answer nor leak a key: a
 * logger that throws is ignored, and every configured key or secret is replaced by
 * `[redacted]` in messages and fields (a handler's error message may quote one). Levels the
 * user did not define stay undefined, so their fields are never even built.
 */
export function safeLogger(logger: ReceiverLogger, secrets: readonly string[]): ReceiverLogger {
  const safe: ReceiverLogger = {};
  for (const level of LEVELS) {
    const write = logger[level];
    if (typeof write !== 'function') continue;
    safe[level] = (message: string, fields?: LogFields) => {
      try {
        const clean =
          secrets.length === 0 || fields === undefined ? fields : (redactValue(fields, secrets, 0) as LogFields);
        write.call(logger, secrets.length === 0 ? message : redactText(message, secrets), clean);
      } catch {
        // A broken logger must not turn a 200 into a 500 (nor run the handler twice).
      }
    };
  }
  return safe;
}
