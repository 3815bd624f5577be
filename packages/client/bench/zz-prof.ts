import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HEADERS, JSON_CONTENT_TYPE, sampleSessionDetails, sessionDetailsUrl } from '@kyc/contracts';
import ky from 'ky';
import { KycClient } from '../src/index.js';
const BODY = JSON.stringify(sampleSessionDetails);
const server = createServer((_q, r) => { r.writeHead(200, { [HEADERS.contentType]: JSON_CONTENT_TYPE, [HEADERS.requestId]: 'req' }); r.end(BODY); });
server.listen(0, '127.0.0.1'); await once(server, 'listening');
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const url = sessionDetailsUrl(baseUrl, sampleSessionDetails.id);
const client = new KycClient({ baseUrl, username: 'b', password: 'bench-password' });
const which = process.argv[2];
const authorization = `Basic ${btoa('b:bench-password')}`;
const call = which === 'ky' ? async () => JSON.parse(await (await ky(url, { headers: { authorization }, retry: 0, timeout: false })).text())
  : which === 'fetch' ? async () => JSON.parse(await (await fetch(url, { headers: { authorization } })).text())
  : () => client.getSession(sampleSessionDetails.id);
for (let i = 0; i < 6000; i++) await call();
server.closeAllConnections(); server.close();
