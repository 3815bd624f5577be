import type { IncomingMessage } from 'node:http';

/** Reads a header of a Node request by lower-case name; repeated headers are joined with ", ". */
export function nodeHeaderReader(request: IncomingMessage): (name: string) => string | undefined {
  return (name) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}
