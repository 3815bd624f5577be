import type { IncomingMessage } from 'node:http';
import type { ReceiverInput } from '../../receiver/types.js';
import { type ParsedBodyHolder, readNodeBody } from './read-body.js';

/**
 * A Node request as the core reads it (node:http, Express, Connect, Fastify, Koa). One object of
 * one shape per request, whose methods read the request when the core asks: headers are looked
 * up by name in Node's own object, the body is read only once the head of the request passed.
 */
export class NodeInput implements ReceiverInput {
  readonly method: string;

  constructor(
    private readonly request: IncomingMessage,
    private readonly holder: ParsedBodyHolder = request as ParsedBodyHolder,
  ) {
    this.method = request.method ?? '';
  }

  /** Repeated headers are joined with ", ". */
  header(name: string): string | undefined {
    const value = this.request.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  readBody(maxBytes: number): Promise<Uint8Array> {
    return readNodeBody(this.request, this.holder, maxBytes);
  }
}
