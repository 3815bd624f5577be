import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { RESPONSE_SNIPPET_MAX_BYTES } from '@kyc/contracts';
import type { LOCAL_FAILURES } from '../listen/protocol.js';

/** What the local server answered, or how reaching it failed. */
export type LocalAnswer =
  | { readonly status: number; readonly latencyMs: number; readonly snippet: string }
  | {
      readonly failure: (typeof LOCAL_FAILURES)[number];
      readonly message: string;
      readonly latencyMs: number;
      /** Set when the status line arrived before the failure (a body cut short). */
      readonly status?: number;
    };

const decoder = new TextDecoder('utf-8', { fatal: false });

function failureOf(error: NodeJS.ErrnoException, timedOut: boolean): (typeof LOCAL_FAILURES)[number] {
  if (timedOut) return 'timeout';
  if (error.code === 'ECONNREFUSED' || error.code === 'EHOSTUNREACH' || error.code === 'EADDRNOTAVAIL') {
    return 'connect_error';
  }
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return 'dns_error';
  if (/cert|ssl|tls|self[- ]signed/i.test(`${error.code ?? ''} ${error.message}`)) return 'tls_error';
  return 'connection_reset';
}

/**
 * POSTs one forwarded attempt to the developer's local server exactly as the engine built it:
 * these headers (Authorization and every `Webhook-*` included) and these body bytes, nothing
 * added but what HTTP itself needs (Host, Content-Length, Connection). Redirects are not
 * followed; at most RESPONSE_SNIPPET_MAX_BYTES of the answer are read; one deadline covers the
 * whole exchange, and `signal` gives it up early (the service cancelled it).
 */
export function postLocal(
  target: URL,
  headers: Readonly<Record<string, string>>,
  body: string,
  options: { deadlineMs: number; signal?: AbortSignal; ca?: readonly string[] },
): Promise<LocalAnswer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const bytes = Buffer.from(body, 'utf8');
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    let status: number | undefined;
    const finish = (answer: LocalAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(answer);
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      target,
      {
        method: 'POST',
        // `localhost` may answer ::1 and 127.0.0.1: Node's default happy-eyeballs connect
        // (autoSelectFamily) tries each, whichever the server listens on.
        headers: { ...headers, 'content-length': String(bytes.byteLength) },
        ...(options.ca?.length ? { ca: [...options.ca] } : {}),
      },
      (response: IncomingMessage) => {
        status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          const room = RESPONSE_SNIPPET_MAX_BYTES - size;
          if (room <= 0) return;
          chunks.push(chunk.byteLength > room ? chunk.subarray(0, room) : chunk);
          size += Math.min(room, chunk.byteLength);
          if (size >= RESPONSE_SNIPPET_MAX_BYTES) {
            finish({ status: status ?? 0, latencyMs: elapsed(), snippet: decoder.decode(Buffer.concat(chunks)) });
            response.destroy();
          }
        });
        response.on('end', () =>
          finish({ status: status ?? 0, latencyMs: elapsed(), snippet: decoder.decode(Buffer.concat(chunks)) }),
        );
        response.on('error', (error) => request.emit('error', error));
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy(new Error(`no complete answer within ${options.deadlineMs} ms`));
    }, options.deadlineMs);
    const onAbort = () => request.destroy(new Error('cancelled by the service'));
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const during = status === undefined ? '' : ` (after status ${status}, while reading the body)`;
      finish({
        failure: failureOf(error, timedOut),
        message: `${error.code ? `${error.code}: ` : ''}${error.message}${during}`,
        latencyMs: elapsed(),
        ...(status === undefined ? {} : { status }),
      });
    });
    request.end(bytes);
  });
}
