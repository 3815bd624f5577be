import { RESPONSE_SNIPPET_MAX_BYTES } from '@kyc/contracts';
import type { Dispatcher } from 'undici';
import type { AttemptAbort } from './attempt-abort.js';

const decoder = new TextDecoder('utf-8', { fatal: false });
/** Why a response is cut short once its snippet is read (nothing else of it is kept). */
const SNIPPET_READ = new Error('the response snippet is complete');

type Controller = Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestStart']>>[0];

/**
 * One POST through undici's `dispatch` with a handler that keeps only the status and the first
 * `maxBytes` of the body. `request()` would wrap every answer in a Node `Readable`, an async
 * resource and an abort listener, which cost more than the rest of an attempt's bookkeeping;
 * a webhook answer needs none of them. Resolves with the snippet (lenient UTF-8); rejects with
 * undici's error, or `abort`'s reason when the attempt's deadline or a stop fired first.
 */
class SnippetHandler implements Dispatcher.DispatchHandler {
  status: number | undefined;
  #controller: Controller | undefined;
  #chunks: Uint8Array[] = [];
  #size = 0;
  #settled = false;
  readonly #resolve: (snippet: string) => void;
  readonly #reject: (error: unknown) => void;
  readonly #abort: AttemptAbort;
  readonly #maxBytes: number;
  readonly #onAbort = () => this.#fail(this.#abort.reason);

  constructor(
    abort: AttemptAbort,
    maxBytes: number,
    resolve: (snippet: string) => void,
    reject: (error: unknown) => void,
  ) {
    this.#abort = abort;
    this.#maxBytes = maxBytes;
    this.#resolve = resolve;
    this.#reject = reject;
    abort.addEventListener('abort', this.#onAbort);
  }

  onRequestStart(controller: Controller): void {
    this.#controller = controller;
    // Aborted while waiting for a connection: nothing may be written now.
    if (this.#settled) controller.abort(this.#abort.reason instanceof Error ? this.#abort.reason : SNIPPET_READ);
  }

  onResponseStart(_controller: Controller, statusCode: number): void {
    // 1xx answers are informational: the real status follows.
    if (statusCode >= 200) this.status = statusCode;
  }

  onResponseData(controller: Controller, chunk: Uint8Array): void {
    if (this.#settled) return;
    const room = this.#maxBytes - this.#size;
    this.#chunks.push(chunk.byteLength > room ? chunk.subarray(0, room) : chunk);
    this.#size += Math.min(chunk.byteLength, room);
    if (this.#size >= this.#maxBytes) {
      // A receiver that streams forever cannot hold the attempt or its memory.
      this.#finish();
      controller.abort(SNIPPET_READ);
    }
  }

  onResponseEnd(): void {
    this.#finish();
  }

  onResponseError(_controller: Controller, error: Error): void {
    if (error !== SNIPPET_READ) this.#fail(error);
  }

  #finish(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#abort.removeEventListener('abort', this.#onAbort);
    const chunks = this.#chunks;
    this.#resolve(chunks.length === 0 ? '' : decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#abort.removeEventListener('abort', this.#onAbort);
    this.#controller?.abort(error instanceof Error ? error : SNIPPET_READ);
    this.#reject(error);
  }
}

/** The exchange of one attempt: `status` is set once the answer's status line arrived. */
export interface Exchange {
  readonly snippet: Promise<string>;
  readonly handler: { readonly status: number | undefined };
}

export function postForSnippet(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  abort: AttemptAbort,
  maxBytes: number = RESPONSE_SNIPPET_MAX_BYTES,
): Exchange {
  let handler: SnippetHandler | undefined;
  const snippet = new Promise<string>((resolve, reject) => {
    handler = new SnippetHandler(abort, maxBytes, resolve, reject);
    if (abort.aborted) {
      reject(abort.reason);
      return;
    }
    dispatcher.dispatch(options, handler);
  });
  return { snippet, handler: handler ?? { status: undefined } };
}
