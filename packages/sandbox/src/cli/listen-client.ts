import type { IncomingMessage } from 'node:http';
import { hostname } from 'node:os';
import WebSocket from 'ws';
import {
  type AttemptMessage,
  CLOSE,
  LISTEN_HEADERS,
  LISTEN_PATH,
  LISTEN_PROTOCOL,
  MAX_MESSAGE_BYTES,
  parseMessage,
  type ResultMessage,
  type ServerMessage,
  serverMessageSchema,
} from '../listen/protocol.js';
import type { CliIo } from './cli-io.js';
import { clockTime, formatDelivery, formatRecorded } from './listen-output.js';
import { postLocal } from './post-local.js';
import { type ServiceLogin, serviceEndpoint } from './service-login.js';

/** How one connection ended. */
export type ConnectionEnd =
  | { readonly kind: 'refused'; readonly status: number; readonly message: string }
  | { readonly kind: 'unreachable'; readonly message: string }
  | { readonly kind: 'dropped'; readonly reason: string; readonly wasReady: boolean }
  | { readonly kind: 'replaced'; readonly by: string }
  | { readonly kind: 'stopped' };

/** The answer a refused upgrade carried (the API's error body), read for its message. */
function readRefusal(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      if (text.length < 4096) text += chunk;
    });
    response.on('end', () => {
      try {
        const parsed = JSON.parse(text) as { error?: { message?: unknown } };
        resolve(typeof parsed.error?.message === 'string' ? parsed.error.message : text.slice(0, 200));
      } catch {
        resolve(text.slice(0, 200) || `HTTP ${response.statusCode}`);
      }
    });
    response.on('error', () => resolve(`HTTP ${response.statusCode}`));
  });
}

/** The WebSocket address of the service's listen endpoint. */
export function listenUrl(service: URL): URL {
  const url = serviceEndpoint(service, LISTEN_PATH);
  url.protocol = service.protocol === 'https:' ? 'wss:' : 'ws:';
  return url;
}

/**
 * One connection of `kyc-sandbox listen`: logs in, then POSTs every attempt the service sends
 * to `target` and reports each answer back, printing one line per delivery. Resolves with how
 * the connection ended; `stop` (Ctrl-C) lets attempts in flight report first.
 */
export function connectOnce(
  login: ServiceLogin,
  target: URL,
  io: CliIo,
  stop: AbortSignal,
  onReady: (message: Extract<ServerMessage, { type: 'ready' }>) => void,
): Promise<ConnectionEnd> {
  return new Promise((resolve) => {
    let end: ConnectionEnd | undefined;
    let ready = false;
    const inFlight = new Map<string, AbortController>();
    /** What this CLI reported per attempt, to compare with what the service recorded. */
    const reported = new Map<string, number | undefined>();
    const socket = new WebSocket(listenUrl(login.service), LISTEN_PROTOCOL, {
      headers: {
        authorization: login.authorization,
        [LISTEN_HEADERS.host]: hostname(),
        [LISTEN_HEADERS.forwardTo]: target.href,
      },
      maxPayload: MAX_MESSAGE_BYTES,
      handshakeTimeout: 15_000,
    });
    const finish = (value: ConnectionEnd) => {
      end ??= value;
    };
    const closeWhenIdle = () => {
      if (inFlight.size === 0 && socket.readyState === WebSocket.OPEN) socket.close(1000, 'done');
    };
    const onStop = () => {
      finish({ kind: 'stopped' });
      closeWhenIdle();
    };
    stop.addEventListener('abort', onStop, { once: true });

    // Ctrl-C during the handshake: close as soon as the connection is open.
    socket.on('open', () => {
      if (end !== undefined) closeWhenIdle();
    });
    socket.on('unexpected-response', (_request, response) => {
      void readRefusal(response).then((message) => {
        finish({ kind: 'refused', status: response.statusCode ?? 0, message });
        socket.terminate();
      });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!ready) finish({ kind: 'unreachable', message: error.code ?? error.message });
    });
    socket.on('close', (code, reason) => {
      stop.removeEventListener('abort', onStop);
      for (const controller of inFlight.values()) controller.abort();
      if (code === CLOSE.replaced) finish({ kind: 'replaced', by: 'another kyc-sandbox listen' });
      finish({
        kind: 'dropped',
        reason: `${code}${reason.length > 0 ? ` ${reason.toString()}` : ''}`,
        wasReady: ready,
      });
      resolve(end ?? { kind: 'stopped' });
    });
    socket.on('message', (data, isBinary) => {
      const message = isBinary ? undefined : parseMessage(serverMessageSchema, data);
      if (message === undefined) return;
      switch (message.type) {
        case 'ready':
          ready = true;
          onReady(message);
          break;
        case 'attempt':
          void forward(message);
          break;
        case 'cancel':
          inFlight.get(message.id)?.abort();
          break;
        case 'recorded': {
          const key = `${message.eventId}#${message.attempt}`;
          io.out(formatRecorded(message, reported.get(key)));
          reported.delete(key);
          break;
        }
        case 'replaced':
          finish({ kind: 'replaced', by: `${message.by.host} (${message.by.address})` });
          io.out(
            `${clockTime(new Date())}  another kyc-sandbox listen for this company connected from ${message.by.host} (${message.by.address}); this one stops once its deliveries in flight have reported\n`,
          );
          closeWhenIdle();
          break;
      }
    });

    async function forward(message: AttemptMessage): Promise<void> {
      const controller = new AbortController();
      inFlight.set(message.id, controller);
      const answer = await postLocal(target, message.headers, message.body, {
        deadlineMs: message.deadlineMs,
        signal: controller.signal,
      });
      inFlight.delete(message.id);
      if (controller.signal.aborted) {
        io.out(
          `${clockTime(new Date())}  ${message.eventId}  attempt ${message.attempt} given up (the service stopped waiting)\n`,
        );
      } else {
        const result: ResultMessage =
          'failure' in answer
            ? {
                type: 'result',
                id: message.id,
                latencyMs: answer.latencyMs,
                ...(answer.status === undefined ? {} : { status: answer.status }),
                failure: { outcome: answer.failure, message: answer.message.slice(0, 2000) },
              }
            : {
                type: 'result',
                id: message.id,
                status: answer.status,
                latencyMs: answer.latencyMs,
                snippet: answer.snippet,
              };
        reported.set(`${message.eventId}#${message.attempt}`, 'failure' in answer ? undefined : answer.status);
        if (reported.size > 10_000) reported.clear();
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(result));
        io.out(formatDelivery(new Date(), message, answer, target));
      }
      if (end !== undefined) closeWhenIdle();
    }
  });
}
