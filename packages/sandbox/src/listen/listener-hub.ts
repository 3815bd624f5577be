import { randomBytes } from 'node:crypto';
import type { AttemptTarget, SelectTransport, Transport } from '@kyc/delivery-engine';
import type { WebSocket } from 'ws';
import { type ListenerInfo, ListenerSession } from './listener-session.js';
import { isListenerUrl } from './listener-url.js';

/** What the hub needs from the sandbox around it. */
export interface ListenerHubOptions {
  /** The engine's per-attempt deadline (real milliseconds), told to each CLI. */
  readonly deadlineMs: number;
  /** The sandbox's schedule speed-up, told to each CLI so its retry lines make sense. */
  readonly timeScale: number;
  /** Records, durably, that an attempt went through a listener (the portal marks it). */
  readonly markForwarded: (eventId: string, attempt: number, listener: ListenerInfo) => void;
  /** A listener of the company connected (remembered: its events then go to the listener when no URL is saved). */
  readonly listened: (companyId: number) => void;
  /** A company's forwarding state changed (a listener came or went): live pages refresh. */
  readonly changed: (companyId: number) => void;
  /** The last four characters of the company's Auth Key, told to its CLI; undefined when none is set. */
  readonly authKeyLast4: (companyId: number) => string | undefined;
}

const MAX_AWAITING = 10_000;

/** What the engine records when a delivery meant for a listener finds none connected. */
const OFFLINE: Transport = {
  send: async () => ({
    outcome: 'connect_error',
    latencyMs: 0,
    errorMessage:
      'no kyc-sandbox listen is connected for this company, and this delivery was made for one (no webhook URL is saved): start kyc-sandbox listen --forward-to <your local URL> and a retry goes to it, or save a webhook URL in Settings and Redeliver',
  }),
  close: async () => undefined,
};

/**
 * The listeners connected to this sandbox, at most one per company: the newest wins, and the
 * one it replaces is told so and closes once its attempts in flight have reported. Its
 * `selectTransport` is the engine's hook: an attempt of a company with a listener goes to that
 * listener, whatever URL the delivery was made for; no other company's attempt ever does.
 */
export class ListenerHub {
  readonly #byCompany = new Map<string, ListenerSession>();
  /** Every open session, the replaced ones still finishing included. */
  readonly #open = new Set<ListenerSession>();
  /** Attempts handed to a listener and not yet recorded: who to tell what the engine made of them. */
  readonly #awaitingRecord = new Map<string, ListenerSession>();
  #closing = false;

  constructor(private readonly options: ListenerHubOptions) {}

  /** Registers a connection that passed authentication; an older listener of the company is replaced. */
  attach(socket: WebSocket, identity: Omit<ListenerInfo, 'listenerId' | 'since'>): ListenerSession | undefined {
    if (this.#closing) {
      socket.terminate();
      return undefined;
    }
    const info: ListenerInfo = {
      ...identity,
      listenerId: `lst_${randomBytes(6).toString('hex')}`,
      since: Date.now(),
    };
    const key = String(info.companyId);
    const session = new ListenerSession(
      info,
      socket,
      this.options.deadlineMs,
      (eventId, attempt) => {
        // Entries of attempts the engine gave back unrecorded (a stop) are dropped in bulk.
        if (this.#awaitingRecord.size >= MAX_AWAITING) this.#awaitingRecord.clear();
        this.#awaitingRecord.set(`${eventId}#${attempt}`, session);
        this.options.markForwarded(eventId, attempt, info);
      },
      (closed) => {
        this.#open.delete(closed);
        if (this.#byCompany.get(key) === closed) {
          this.#byCompany.delete(key);
          this.options.changed(info.companyId);
        }
      },
    );
    this.#open.add(session);
    this.options.listened(info.companyId);
    const older = this.#byCompany.get(key);
    this.#byCompany.set(key, session);
    older?.replace(info);
    session.post({
      type: 'ready',
      listenerId: info.listenerId,
      username: info.username,
      company: info.company,
      since: new Date(info.since).toISOString(),
      deadlineMs: this.options.deadlineMs,
      timeScale: this.options.timeScale,
      authKeyLast4: this.options.authKeyLast4(info.companyId) ?? null,
    });
    this.options.changed(info.companyId);
    return session;
  }

  /** The company's current listener, if one is connected. */
  current(companyId: number): ListenerInfo | undefined {
    const session = this.#byCompany.get(String(companyId));
    return session?.accepting ? session.info : undefined;
  }

  /** The engine's `selectTransport`. */
  readonly selectTransport: SelectTransport = (target: AttemptTarget) => {
    const session = target.companyId === undefined ? undefined : this.#byCompany.get(target.companyId);
    if (session?.accepting) return session;
    return isListenerUrl(target.url) ? OFFLINE : undefined;
  };

  /** Tells the listener that carried an attempt what the engine recorded (for its retry line). */
  recorded(
    eventId: string,
    attempt: number,
    result: { outcome: string; status: number | undefined; state: 'pending' | 'delivered' | 'failed' },
    nextAttemptAt: number | undefined,
  ): void {
    const key = `${eventId}#${attempt}`;
    const session = this.#awaitingRecord.get(key);
    if (session === undefined) return;
    this.#awaitingRecord.delete(key);
    session.post({
      type: 'recorded',
      eventId,
      attempt,
      outcome: result.outcome,
      status: result.status ?? null,
      state: result.state,
      nextAttemptAt: nextAttemptAt === undefined ? null : new Date(nextAttemptAt).toISOString(),
    });
  }

  /** Closes every listener (they reconnect to the next start); call after the engine has stopped. */
  async close(): Promise<void> {
    this.#closing = true;
    const sessions = [...this.#open];
    this.#byCompany.clear();
    this.#awaitingRecord.clear();
    await Promise.all(sessions.map((session) => session.close()));
  }
}
