/** Which Lambda trigger an event is shaped like. */
export type LambdaEventShape = 'api-gateway-v1' | 'api-gateway-v2' | 'function-url';

/** Options of {@link createLambdaEvent}. */
export interface LambdaEventOptions {
  readonly shape: LambdaEventShape;
  /** Send the body base64-encoded with `isBase64Encoded: true`, as API Gateway does for binary media types. */
  readonly base64?: boolean;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const NOW = 1_764_064_800_000; // a fixed instant: the events are recorded shapes, not live ones

/**
 * Turns a Fetch `Request` (e.g. from {@link createTestRequest}) into the event Lambda hands your
 * function for it, with every field the recorded events of that trigger carry: API Gateway REST
 * API (payload 1.0: original header case, `multiValueHeaders`), HTTP API (payload 2.0:
 * lower-case headers, repeated ones joined with commas) or a function URL.
 *
 * @example
 * const event = await createLambdaEvent(createTestRequest({ payload: samples.status, authKey }), { shape: 'api-gateway-v2' });
 * expect((await handler(event)).statusCode).toBe(200);
 */
export async function createLambdaEvent(
  request: Request,
  options: LambdaEventOptions,
): Promise<Record<string, unknown>> {
  const url = new URL(request.url);
  const bytes = new Uint8Array(await request.arrayBuffer());
  const base64 = options.base64 === true;
  const body = bytes.byteLength === 0 ? null : base64 ? toBase64(bytes) : new TextDecoder().decode(bytes);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const common = {
    host: url.host,
    'x-amzn-trace-id': 'Root=1-6925a1a0-0f1e2d3c4b5a69788796a5b4',
    'x-forwarded-for': '203.0.113.10',
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
  };
  if (options.shape === 'api-gateway-v1') {
    // REST APIs keep the header names as sent (Title-Case from most clients).
    const titled = Object.fromEntries(
      Object.entries({ ...common, ...headers }).map(([name, value]) => [
        name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase()),
        value,
      ]),
    );
    return {
      resource: url.pathname,
      path: url.pathname,
      httpMethod: request.method,
      headers: titled,
      multiValueHeaders: Object.fromEntries(Object.entries(titled).map(([name, value]) => [name, [value]])),
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      requestContext: {
        accountId: '123456789012',
        apiId: '1234567890',
        domainName: url.host,
        extendedRequestId: 'Vq3BzFXmDoEFg9w=',
        httpMethod: request.method,
        identity: { sourceIp: '203.0.113.10', userAgent: headers['user-agent'] ?? null },
        path: `/prod${url.pathname}`,
        protocol: 'HTTP/1.1',
        requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
        requestTime: '25/Nov/2025:10:00:00 +0000',
        requestTimeEpoch: NOW,
        resourceId: '123456',
        resourcePath: url.pathname,
        stage: 'prod',
      },
      body,
      isBase64Encoded: base64,
    };
  }
  const functionUrl = options.shape === 'function-url';
  const routeKey = functionUrl ? '$default' : `${request.method} ${url.pathname}`;
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers: { ...common, ...headers },
    requestContext: {
      accountId: functionUrl ? 'anonymous' : '123456789012',
      apiId: functionUrl ? 'abcdefghijklmnopqrstuvwxyz0123' : 'api-id',
      domainName: functionUrl ? 'abcdefghijklmnopqrstuvwxyz0123.lambda-url.eu-west-1.on.aws' : url.host,
      domainPrefix: functionUrl ? 'abcdefghijklmnopqrstuvwxyz0123' : url.host.split('.')[0],
      http: {
        method: request.method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.10',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: 'JKJaXmPLvHcESHA=',
      routeKey,
      stage: '$default',
      time: '25/Nov/2025:10:00:00 +0000',
      timeEpoch: NOW,
    },
    // Payload 2.0 leaves `body` out when there is none; 1.0 sends null.
    ...(body === null ? {} : { body }),
    isBase64Encoded: base64,
  };
}
