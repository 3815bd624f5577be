import type { Context, MiddlewareHandler } from 'hono';

/**
 * Refuses request bodies over `maxBytes` without reading more than that into memory. A declared
 * `Content-Length` is judged at once (Node's parser holds the body to it); a body without one
 * (chunked, or none) is read up to the limit and handed on as a buffered request.
 *
 * Hono's `bodyLimit` rebuilds the request with `new Request(c.req.raw, …)`, which throws on the
 * lightweight requests `@hono/node-server` makes when it leaves the global `Request` alone (as
 * the sandbox does, see `listen`): every chunked request became a 500. This builds the new
 * request from its URL, method and headers instead.
 *
 * @example
 * ```ts
 * app.use(limitBody(256 * 1024, (c) => c.text('too large', 413)));
 * ```
 */
export function limitBody(maxBytes: number, onTooLarge: (c: Context) => Response): MiddlewareHandler {
  return async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body) return next();
    const declared = raw.headers.get('content-length');
    if (declared !== null && !raw.headers.has('transfer-encoding')) {
      return Number(declared) > maxBytes ? onTooLarge(c) : next();
    }
    const reader = raw.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        return onTooLarge(c);
      }
      chunks.push(value);
    }
    const body = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    c.req.raw = new Request(c.req.url, { method: raw.method, headers: raw.headers, body });
    return next();
  };
}
