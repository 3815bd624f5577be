import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { HEADERS, JSON_CONTENT_TYPE } from '@kyc/contracts';
import { WebSocketServer } from 'ws';
import { authenticate, parseBasic, parseCliToken } from '../api/basic-auth.js';
import type { LoginThrottle } from '../api/login-throttle.js';
import { ERROR_CODE } from '../domain/enum-values.js';
import type { SandboxService } from '../sandbox-service.js';
import type { UserRecord } from '../store/sandbox-store.js';
import type { ListenerHub } from './listener-hub.js';
import { LISTEN_HEADERS, LISTEN_PATH, LISTEN_PROTOCOL, MAX_MESSAGE_BYTES } from './protocol.js';

/** What a refused upgrade answers: the API's error body, so the CLI can print its message. */
function refuse(socket: Duplex, status: number, code: string, message: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ error: { code, message } });
  const reason = { 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 429: 'Too Many Requests' }[status];
  const lines = [
    `HTTP/1.1 ${status} ${reason ?? 'Error'}`,
    `${HEADERS.contentType}: ${JSON_CONTENT_TYPE}`,
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** A header the CLI sent about itself, bounded and printable (it is shown in the portal). */
function described(request: IncomingMessage, name: string, fallback: string): string {
  const value = request.headers[name];
  const text = typeof value === 'string' ? value.replace(/[^\x20-\x7e]/g, '').slice(0, 200) : '';
  return text === '' ? fallback : text;
}

/**
 * Handles the HTTP upgrade of `kyc-sandbox listen` on the sandbox's server: the same HTTP
 * Basic credentials and failed-login throttle as the API (or a `kyc-sandbox login` token), then
 * a WebSocket registered with the hub for the user's company. Anything else asking to upgrade is refused.
 */
export function listenUpgrade(service: SandboxService, throttle: LoginThrottle, hub: ListenerHub) {
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  return async (request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    // A client that goes away during the password check must not crash the process.
    socket.on('error', () => undefined);
    const path = new URL(request.url ?? '/', 'http://sandbox.invalid').pathname;
    if (path !== LISTEN_PATH) return refuse(socket, 404, ERROR_CODE.NOT_FOUND, 'No WebSocket endpoint at this path.');
    const protocols = String(request.headers['sec-websocket-protocol'] ?? '').split(/\s*,\s*/);
    if (!protocols.includes(LISTEN_PROTOCOL)) {
      return refuse(
        socket,
        400,
        ERROR_CODE.INVALID_REQUEST,
        `This sandbox speaks ${LISTEN_PROTOCOL}: use a kyc-sandbox CLI of the same version as the sandbox.`,
      );
    }
    const unauthorized = () =>
      refuse(socket, 401, ERROR_CODE.UNAUTHORIZED, 'Send HTTP Basic credentials of a user issued by the operator.', {
        [HEADERS.wwwAuthenticate]: 'Basic realm="KYC sandbox", charset="UTF-8"',
      });
    const token = parseCliToken(request.headers[HEADERS.authorization]);
    if (token !== undefined) {
      const userId = service.store.cliTokens.userOf(token);
      const user = userId === undefined ? undefined : service.store.getUser(userId);
      if (!user) {
        return refuse(
          socket,
          401,
          ERROR_CODE.UNAUTHORIZED,
          'This kyc-sandbox login is unknown or was revoked; run kyc-sandbox login again.',
        );
      }
      return attach(request, socket, head, user);
    }
    const credentials = parseBasic(request.headers[HEADERS.authorization]);
    if (!credentials) return unauthorized();
    const wait = throttle.retryAfterSeconds(credentials.username);
    if (wait !== undefined) {
      return refuse(socket, 429, ERROR_CODE.RATE_LIMITED, `Too many failed logins; retry in ${wait} s.`, {
        [HEADERS.retryAfter]: String(wait),
      });
    }
    const user = await authenticate(service, credentials.username, credentials.password);
    if (!user) {
      throttle.fail(credentials.username);
      return unauthorized();
    }
    throttle.succeed(credentials.username);
    return attach(request, socket, head, user);
  };

  function attach(request: IncomingMessage, socket: Duplex, head: Buffer, user: UserRecord): void {
    const company = service.store.getCompany(user.companyId);
    if (!company || socket.destroyed) {
      refuse(socket, 401, ERROR_CODE.UNAUTHORIZED, 'This user has no company.');
      return;
    }
    server.handleUpgrade(request, socket, head, (ws) => {
      hub.attach(ws, {
        companyId: company.id,
        company: company.name,
        username: user.username,
        host: described(request, LISTEN_HEADERS.host, 'unknown host'),
        address: request.socket.remoteAddress ?? 'unknown',
        forwardTo: described(request, LISTEN_HEADERS.forwardTo, 'unknown'),
      });
    });
  }
}
