import type { SupersededBy } from '../inbox/types.js';
import type { ReceiverInput, WebhookContext } from './types.js';

/**
 * The context handed to `onEvent`. A class rather than an object literal with `get signal()`:
 * V8 builds a literal that has an accessor on a slow path, and its objects outlived the young
 * generation. Measured on the status shape (issue 15): ~1.9 KB promoted to the old generation
 * per request, and the garbage collector the top frame of the receiver's profile.
 *
 * Nothing is made per request that the handler does not ask for: the signal's controller, and
 * the `header` function. A function made in the constructor for every request (as `header` was)
 * made the young-generation collector keep each request's objects (the request, its input and
 * what they reach) and promote them to the old generation: measured over HTTP (issue 21), ~530 B
 * promoted per request and the young generation grown fourfold, against ~4 B without it.
 */
export class HandlerContext implements WebhookContext<unknown> {
  #controller: AbortController | undefined;
  #header: ((name: string) => string | undefined) | undefined;

  constructor(
    readonly idempotencyKey: string,
    readonly webhookId: string | undefined,
    private readonly input: ReceiverInput,
    /** Inbox mode: the open transaction's own object; `undefined` otherwise. */
    readonly tx: unknown = undefined,
    /** Inbox mode: the newer result already applied to the session, when this one is older. */
    readonly supersededBy: SupersededBy | undefined = undefined,
  ) {}

  /** A function of its own, made at the first read, so that `const { header } = context` works. */
  get header(): (name: string) => string | undefined {
    const { input } = this;
    this.#header ??= (name) => input.header(name.toLowerCase()) ?? undefined;
    return this.#header;
  }

  /** Created only if the handler asks for it: most never do, and it costs on every delivery. */
  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }

  /** Aborts `signal`: the receiver answered 503 while the handler still runs. Not on instances, so handlers cannot call it. */
  static abort(context: HandlerContext, reason: Error): void {
    context.#controller ??= new AbortController();
    context.#controller.abort(reason);
  }
}
