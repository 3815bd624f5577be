// The ESM twin of smoke.cjs: the built ESM entry, imported by a plain Node ESM user.
import { createServer } from 'node:http';
import { KycClient, KycNotFoundError } from '../../dist/index.js';

const server = createServer((_request, response) => {
  response.writeHead(404, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { code: 'SESSION_NOT_FOUND', message: 'none' } }));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
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
console.log('esm smoke: ok');
