// Loads the built CJS entry the way a CommonJS user would and makes one real call, so a broken
// interop (e.g. an ESM-only dependency required from CJS) fails `pnpm check:package`.
const { createServer } = require('node:http');
const { KycClient, KycNotFoundError } = require('../../dist/index.cjs');

const server = createServer((_request, response) => {
  response.writeHead(404, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { code: 'SESSION_NOT_FOUND', message: 'none' } }));
});
server.listen(0, '127.0.0.1', async () => {
  const client = new KycClient({
    baseUrl: `http://127.0.0.1:${server.address().port}`,
    username: 'smoke',
    password: 'smoke-password',
  });
  try {
    await client.getSession('s1');
    throw new Error('expected a 404');
  } catch (error) {
    if (!(error instanceof KycNotFoundError)) throw error;
  } finally {
    server.close();
  }
  console.log('cjs smoke: ok');
});
