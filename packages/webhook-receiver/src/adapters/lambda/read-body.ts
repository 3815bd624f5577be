import { tooLarge } from '../../receiver/read-web-body.js';
import { WebhookError } from '../../webhook-error.js';
import type { LambdaRequest } from './event.js';

function fromBase64(text: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text);
  } catch (cause) {
    throw new WebhookError('body_unreadable', 'The event says its body is base64 but it is not valid base64.', {
      cause,
    });
  }
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/**
 * The body bytes of a Lambda event: decoded from base64 when `isBase64Encoded` (function URLs
 * and HTTP APIs send some bodies that way), else the UTF-8 of the text. The whole body is
 * already in memory, so the limit is checked on its size.
 */
export function lambdaBodyReader(request: LambdaRequest): (maxBytes: number) => Promise<Uint8Array> {
  return async (maxBytes) => {
    // A base64 text is at least 4/3 of its bytes: a text this long cannot fit, decoded or not.
    if (request.body.length > (request.isBase64Encoded ? Math.ceil(maxBytes / 3) * 4 : maxBytes * 3)) {
      throw tooLarge(maxBytes);
    }
    const bytes = request.isBase64Encoded ? fromBase64(request.body) : new TextEncoder().encode(request.body);
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
    return bytes;
  };
}
