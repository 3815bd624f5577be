import type { TestDelivery, TestReply } from './receiver-table.js';

/** Builds the Fetch `RequestInit` of a test delivery (streams go out chunked, `duplex: 'half'`). */
export function requestInit(delivery: TestDelivery): RequestInit {
  const method = delivery.method ?? 'POST';
  const init: RequestInit & { duplex?: 'half' } = { method, headers: { ...delivery.headers } };
  if (method !== 'GET' && method !== 'HEAD' && delivery.body !== undefined) {
    init.body = delivery.body as BodyInit;
    if (delivery.body instanceof ReadableStream) init.duplex = 'half';
  }
  return init;
}

/** Sends a delivery over loopback HTTP to `baseUrl`. */
export async function sendOverHttp(baseUrl: string, delivery: TestDelivery): Promise<TestReply> {
  const response = await fetch(`${baseUrl}${delivery.path ?? '/webhooks/kyc'}`, requestInit(delivery));
  return { status: response.status, headers: response.headers, text: await response.text() };
}
