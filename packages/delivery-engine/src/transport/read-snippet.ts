import { RESPONSE_SNIPPET_MAX_BYTES } from '@kyc/contracts';

const decoder = new TextDecoder('utf-8', { fatal: false });

/** The part of a response body stream this reader uses (undici's `BodyReadable` is one). */
export interface SnippetSource {
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  destroy(error?: Error): unknown;
}

/**
 * Reads at most `maxBytes` of a response body and decodes them leniently as UTF-8 (bad bytes
 * become U+FFFD). Once the cap is reached the stream is destroyed, so a receiver that streams
 * forever cannot hold the attempt or its memory. Rejects if the stream fails, or closes (an
 * abort) before its end or the cap.
 *
 * Flowing-mode events rather than `for await`: the async iterator costs several microseconds
 * per response, which is measurable on the engine's hot path.
 *
 * @example
 * ```ts
 * const { body } = await pool.request({ path: '/', method: 'POST' });
 * const snippet = await readSnippet(body);
 * ```
 */
export function readSnippet(body: SnippetSource, maxBytes: number = RESPONSE_SNIPPET_MAX_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      if (chunks.length === 0) resolve('');
      else resolve(decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    };
    body.on('data', (chunk) => {
      if (settled) return;
      const room = maxBytes - size;
      chunks.push(chunk.byteLength > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.byteLength, room);
      if (size >= maxBytes) {
        finish();
        body.destroy();
      }
    });
    body.on('end', finish);
    body.on('error', (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
    body.on('close', () => {
      if (settled) return;
      settled = true;
      reject(new Error('response body closed before its end'));
    });
  });
}
