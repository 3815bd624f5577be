import type { ServerResponse } from 'node:http';
import type { ReceiverAnswer } from '../../receiver/types.js';

/**
 * Writes the receiver's answer. After a 413 the connection is closed, so the rest of an
 * oversized body is dropped by Node rather than read on a kept-alive connection.
 */
export function sendNodeAnswer(response: ServerResponse, answer: ReceiverAnswer): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(
    answer.status,
    answer.status === 413 ? { ...answer.headers, connection: 'close' } : answer.headers,
  );
  response.end(answer.body);
}
