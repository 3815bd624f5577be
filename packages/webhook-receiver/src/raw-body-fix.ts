/**
 * What to do when a framework parsed or read the body before the receiver: the advice of the
 * Node adapter's error and of `parseWebhook`'s. Each fix named here is tested with real Express 5
 * (test/express.test.ts). A parser on the webhook route itself (`express.raw()`) is not one: once
 * a global `express.json()` has read the stream, a later parser skips the request.
 */
export function rawBodyFix(maxBytes: number): string {
  return (
    'The receiver needs the raw bytes: mount the webhook route before app.use(express.json()) (or any other ' +
    'body parser), or make the global parser keep them: ' +
    `express.json({ limit: ${maxBytes}, verify: (req, _res, buf) => { req.rawBody = buf } }). ` +
    'An express.raw() on the route does not help once a global parser has run. ' +
    'NestJS: NestFactory.create(AppModule, { rawBody: true }); Koa: mount it before the body parser.'
  );
}
