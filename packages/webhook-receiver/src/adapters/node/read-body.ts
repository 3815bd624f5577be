import type { IncomingMessage } from 'node:http';
import { rawBodyFix } from '../../raw-body-fix.js';
import { concatChunks, tooLarge } from '../../receiver/read-web-body.js';
import { WebhookError } from '../../webhook-error.js';

/** What a framework may already have put on the request: a parsed `body` and/or the raw bytes. */
export interface ParsedBodyHolder {
  readonly body?: unknown;
  readonly rawBody?: unknown;
}

function asBytes(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return new TextEncoder().encode(value);
  return undefined;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

function consumed(detail: string, maxBytes: number): WebhookError {
  return new WebhookError(
    'body_already_consumed',
    `The webhook request body ${detail} before the receiver saw it. ${rawBodyFix(maxBytes)}`,
  );
}

/**
 * Reads a Node request stream once, counting bytes, and stops at the limit: the data listener is
 * removed and the stream paused, so nothing more is buffered (Node discards the rest after the
 * 413 is sent). Raw bytes a framework kept (`express.raw` → `req.body` Buffer, `rawBody`) are used
 * as they are; a body already parsed into an object, or a stream already read, is refused with
 * a clear error instead of waiting forever for data that will never come. The listeners are not
 * removed once the body is read: the request is over then, and they go with it.
 */
export function readNodeBody(
  request: IncomingMessage,
  holder: ParsedBodyHolder,
  maxBytes: number,
): Promise<Uint8Array> {
  const raw = asBytes(holder.rawBody) ?? asBytes(holder.body);
  if (raw !== undefined) return raw.byteLength > maxBytes ? Promise.reject(tooLarge(maxBytes)) : Promise.resolve(raw);
  const unread = !request.readableEnded && request.readableFlowing !== true && !request.destroyed;
  // body-parser 1.x (Express 4) sets `req.body = {}` even for a request it skipped: the stream is still there.
  if (holder.body !== undefined && !(unread && isEmptyObject(holder.body))) {
    return Promise.reject(consumed('was already parsed by a body parser', maxBytes));
  }
  if (!unread) return Promise.reject(consumed('stream was already read', maxBytes));
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const onData = (chunk: Uint8Array | string) => {
      const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
      size += bytes.byteLength;
      if (size > maxBytes) {
        request.off('data', onData);
        request.pause();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(bytes);
    };
    request.on('data', onData);
    request.on('end', () => resolve(concatChunks(chunks, size)));
    request.on('error', (cause: unknown) =>
      reject(new WebhookError('body_unreadable', 'The request body could not be read.', { cause })),
    );
    // Node reports a client gone mid-body as an error; a request destroyed by other code only closes.
    request.on('close', () => {
      if (!request.readableEnded) reject(new WebhookError('body_unreadable', 'The client closed the request early.'));
    });
  });
}
