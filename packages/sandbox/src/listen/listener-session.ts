import { randomBytes } from 'node:crypto';
import { HEADERS } from '@kyc/contracts';
import { type AttemptRequest, type AttemptResult, outcomeOfStatus, type Transport } from '@kyc/delivery-engine';
import type { WebSocket } from 'ws';
import { CLOSE, clientMessageSchema, parseMessage, type ResultMessage, type ServerMessage } from './protocol.js';

/** Who listens, from where, since when: what the portal shows. */
export interface ListenerInfo {
  readonly listenerId: string;
  readonly companyId: number;
  readonly company: string;
  readonly username: string;
  /** The host name the CLI reported (its machine), for people; not verified. */
  readonly host: string;
  /** The address the connection came from, as the sandbox saw it. */
  readonly address: string;
  /** The local URL the CLI forwards to (on its own machine). */
  readonly forwardTo: string;
  /** Wall-clock ms when it connected. */
  readonly since: number;
}

/** How often the sandbox pings a listener; one without a pong by the next ping is cut. */
const HEARTBEAT_MS = 15_000;

const DROPPED =
  'the kyc-sandbox listen connection closed before it reported a result (the request may have reached your server); the attempt is retried on the schedule';

/**
 * One connected `kyc-sandbox listen`: a {@link Transport} the engine's `selectTransport` hands
 * this company's attempts to. Each attempt goes out as one `attempt` message and resolves with
 * the CLI's `result`; a connection that drops fails every attempt still waiting (the engine
 * records a `connection_reset` and retries on schedule), so nothing is lost and nothing is
 * recorded twice. A result can only answer an attempt of this session.
 */
export class ListenerSession implements Transport {
  readonly #pending = new Map<string, (result: AttemptResult) => void>();
  readonly #socket: WebSocket;
  #alive = true;
  #replaced = false;
  #closed = false;
  readonly #heartbeat: NodeJS.Timeout;

  constructor(
    readonly info: ListenerInfo,
    socket: WebSocket,
    private readonly deadlineMs: number,
    private readonly onForward: (eventId: string, attempt: number) => void,
    onClose: (session: ListenerSession) => void,
  ) {
    this.#socket = socket;
    socket.on('pong', () => {
      this.#alive = true;
    });
    socket.on('message', (data, isBinary) => this.#receive(isBinary ? undefined : data));
    // Errors end in 'close', which is where every waiting attempt fails.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.#closed = true;
      clearInterval(this.#heartbeat);
      for (const [id, settle] of this.#pending) {
        this.#pending.delete(id);
        settle({ outcome: 'connection_reset', latencyMs: 0, errorMessage: DROPPED });
      }
      onClose(this);
    });
    this.#heartbeat = setInterval(() => {
      if (!this.#alive) {
        socket.terminate();
        return;
      }
      this.#alive = false;
      socket.ping();
    }, HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /** Takes new attempts: connected, and not replaced by a newer listener. */
  get accepting(): boolean {
    return !this.#closed && !this.#replaced;
  }

  get inFlight(): number {
    return this.#pending.size;
  }

  post(message: ServerMessage): void {
    if (!this.#closed) this.#socket.send(JSON.stringify(message), () => undefined);
  }

  send(request: AttemptRequest, signal?: AbortSignal): Promise<AttemptResult> {
    if (!this.accepting) {
      return Promise.resolve({ outcome: 'connection_reset', latencyMs: 0, errorMessage: DROPPED });
    }
    const id = randomBytes(9).toString('base64url');
    const eventId = request.headers[HEADERS.webhookId] ?? '';
    const attempt = Number(request.headers[HEADERS.webhookAttempt] ?? 1);
    return new Promise<AttemptResult>((resolve) => {
      const settle = (result: AttemptResult) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
        if (this.#replaced && this.#pending.size === 0) this.#socket.close(CLOSE.replaced, 'replaced');
      };
      const onAbort = () => {
        if (!this.#pending.delete(id)) return;
        this.post({ type: 'cancel', id, reason: 'the service gave this attempt up (deadline or shutdown)' });
        settle({ outcome: 'timeout', latencyMs: 0, errorMessage: 'the forwarded attempt was given up' });
      };
      this.#pending.set(id, settle);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.onForward(eventId, attempt);
      this.#socket.send(
        JSON.stringify({
          type: 'attempt',
          id,
          eventId,
          attempt,
          headers: request.headers,
          body: request.body,
          deadlineMs: this.deadlineMs,
        } satisfies ServerMessage),
        (error) => {
          if (error && this.#pending.delete(id)) {
            settle({ outcome: 'connection_reset', latencyMs: 0, errorMessage: DROPPED });
          }
        },
      );
    });
  }

  /** A newer listener took over: say so, finish what is in flight, then close. */
  replace(by: ListenerInfo): void {
    this.#replaced = true;
    this.post({
      type: 'replaced',
      by: { host: by.host, address: by.address, since: new Date(by.since).toISOString() },
    });
    if (this.#pending.size === 0) this.#socket.close(CLOSE.replaced, 'replaced');
  }

  /** Closes the connection (the sandbox is stopping); attempts still waiting fail and are retried. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.once('close', () => resolve());
      this.#socket.close(CLOSE.goingAway, 'the sandbox is shutting down');
      // A peer that never answers the close handshake is cut.
      setTimeout(() => this.#socket.terminate(), 2000).unref();
    });
  }

  #receive(data: unknown): void {
    const message = data === undefined ? undefined : parseMessage(clientMessageSchema, data);
    if (message === undefined) {
      this.#socket.close(CLOSE.protocolError, 'unreadable message');
      return;
    }
    this.#settle(message);
  }

  #settle(message: ResultMessage): void {
    const settle = this.#pending.get(message.id);
    // Unknown ids (given up already, or never ours) are ignored: a result answers one attempt once.
    if (settle === undefined) return;
    this.#pending.delete(message.id);
    if (message.failure !== undefined) {
      settle({
        outcome: message.failure.outcome,
        ...(message.status === undefined ? {} : { status: message.status }),
        latencyMs: message.latencyMs,
        errorMessage: message.failure.message,
      });
      return;
    }
    if (message.status === undefined) {
      settle({
        outcome: 'connection_reset',
        latencyMs: message.latencyMs,
        errorMessage: 'the listener reported no status',
      });
      return;
    }
    settle({
      outcome: outcomeOfStatus(message.status),
      status: message.status,
      latencyMs: message.latencyMs,
      ...(message.snippet === undefined ? {} : { responseSnippet: message.snippet }),
    });
  }
}
