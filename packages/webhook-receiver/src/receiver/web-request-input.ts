import { readWebBody } from './read-web-body.js';
import type { ReceiverInput } from './types.js';

/** A Fetch API `Request` as the core reads it: what `handle` passes to `receive`. */
export class WebRequestInput implements ReceiverInput {
  readonly method: string;

  constructor(private readonly request: Request) {
    this.method = request.method;
  }

  header(name: string): string | null {
    return this.request.headers.get(name);
  }

  readBody(maxBytes: number): Promise<Uint8Array> {
    return readWebBody(this.request, maxBytes);
  }
}
