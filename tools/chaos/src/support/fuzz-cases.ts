import { HEADERS, sampleStatusWebhook, sampleV1Webhook } from '@kyc/contracts';
import { between } from './between.js';

/** A request sent through a well-behaved HTTP client (undici): mutated method, headers and body. */
export interface HttpCase {
  readonly kind: 'http';
  readonly label: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array | undefined;
  /** Send the body as chunks of these sizes (Transfer-Encoding: chunked), else with Content-Length. */
  readonly chunks: readonly number[] | undefined;
  /** The answer the receiver table gives for this case, when it is certain. */
  readonly expect: readonly number[] | undefined;
}

/** Bytes written straight to a socket: broken framing, pipelining, slow bodies, early hang-ups. */
export interface RawCase {
  readonly kind: 'raw';
  readonly label: string;
  readonly parts: readonly Uint8Array[];
  /** Pause between parts (slow-loris), ms. */
  readonly gapMs: number;
  /** Close the socket after writing, without waiting for an answer. */
  readonly hangUp: boolean;
  readonly expect: readonly number[] | undefined;
}

export type FuzzCase = HttpCase | RawCase;

const encoder = new TextEncoder();
const MAX_BODY = 1024 * 1024;

function randomBytes(random: () => number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

function printable(random: () => number, max: number): string {
  let text = '';
  const length = between(random, 0, max);
  for (let i = 0; i < length; i++) text += String.fromCharCode(between(random, 0x20, 0x7e));
  return text;
}

function weirdJson(random: () => number, depth = 0): unknown {
  const choice = between(random, 0, depth > 3 ? 5 : 9);
  switch (choice) {
    case 0:
      return null;
    case 1:
      return pick(random, [0, -1, 1e308, -1e308, 5e-324, 2 ** 53 + 1, 100.5, -0.0001]);
    case 2:
      return printable(random, 30);
    case 3:
      return pick(random, ['APPROVED', 'REJECTED', 'PENDING', 'ERROR', 'approved', '', '\u0000', '\ud800', '💥']);
    case 4:
      return random() < 0.5;
    case 5:
      return pick(random, ['2026-11-21T10:15:30.123Z', '2026-02-30T25:61:61.000Z', '95s', '-3m', 'NaNh']);
    case 6:
    case 7:
      return Array.from({ length: between(random, 0, 4) }, () => weirdJson(random, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = between(random, 0, 5); i > 0; i--) {
        const name = pick(random, ['__proto__', 'constructor', 'prototype', 'sessionId', 'id', 'status', 'x']);
        object[name] = weirdJson(random, depth + 1);
      }
      return object;
    }
  }
}

/** The generator: one seeded stream of cases, weighted towards requests that get past the key check. */
export function fuzzCases(random: () => number, key: string) {
  const recent: { id: string; body: string }[] = [];
  let serial = 0;
  const validAuth = () => pick(random, [`Bearer ${key}`, `bearer ${key}`, `BEARER  ${key} `]);
  const wrongAuth = () =>
    pick(random, [
      `Bearer ${key.slice(0, -1)}`,
      `Bearer ${key}x`,
      `Bearer ${key.slice(0, -1)}${key.at(-1) === 'A' ? 'B' : 'A'}`,
      `Basic ${key}`,
      'Bearer',
      'Bearer ',
      `Bearer ${printable(random, 60)}`,
      printable(random, 40),
      `Bearer ${'k'.repeat(between(random, 1000, 8000))}`,
      `${key}`,
    ]);
  const newEvent = () => {
    const id = `evt_fuzz_${serial++}`;
    const base = random() < 0.5 ? sampleStatusWebhook : sampleV1Webhook;
    const body = JSON.stringify({ ...base, ...(base === sampleStatusWebhook ? { sessionId: id } : { id }) });
    recent.push({ id, body });
    if (recent.length > 500) recent.shift();
    return { id, body };
  };
  const mutate = (text: string): Uint8Array => {
    const bytes = encoder.encode(text);
    switch (between(random, 0, 5)) {
      case 0: {
        for (let i = between(random, 1, 5); i > 0; i--) {
          const at = between(random, 0, bytes.length - 1);
          bytes[at] = (bytes[at] ?? 0) ^ (1 << between(random, 0, 7));
        }
        return bytes;
      }
      case 1:
        return bytes.slice(0, between(random, 0, bytes.length));
      case 2: {
        const at = between(random, 0, bytes.length);
        return new Uint8Array([
          ...bytes.slice(0, at),
          ...randomBytes(random, between(random, 1, 40)),
          ...bytes.slice(at),
        ]);
      }
      case 3: {
        const object = JSON.parse(text) as Record<string, unknown>;
        const keys = Object.keys(object);
        object[pick(random, keys)] = weirdJson(random);
        if (random() < 0.3) object[pick(random, ['sessionId', 'session_id', 'SessionID', 'id'])] = weirdJson(random);
        return encoder.encode(JSON.stringify(object));
      }
      case 4:
        // Deep nesting: a parser or normaliser that recurses without a bound would overflow.
        return encoder.encode(`${'['.repeat(between(random, 100, 50_000))}${']'.repeat(between(random, 0, 100))}`);
      default:
        return encoder.encode(`${text.slice(0, -1)},"sessionId":${JSON.stringify(printable(random, 20))}}`);
    }
  };

  return (): FuzzCase => {
    const draw = random();
    if (draw < 0.06) return rawCase();
    const method = random() < 0.92 ? 'POST' : pick(random, ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']);
    const headers: Record<string, string> = {};
    const authDraw = random();
    const auth = authDraw < 0.7 ? 'valid' : authDraw < 0.85 ? 'wrong' : 'missing';
    if (auth === 'valid') headers[HEADERS.authorization] = validAuth();
    if (auth === 'wrong') headers[HEADERS.authorization] = wrongAuth();
    if (random() < 0.9)
      headers[HEADERS.contentType] = pick(random, [
        'application/json',
        'text/plain',
        'application/json; charset=utf-8',
        '*/*',
        '',
      ]);
    for (let i = between(random, 0, 3); i > 0; i--)
      headers[`x-${printable(random, 8).replace(/[^a-z0-9]/gi, '') || 'h'}`] = printable(random, 40).trim();
    let body: Uint8Array | undefined;
    let label: string;
    let expect: readonly number[] | undefined;
    const bodyDraw = random();
    if (bodyDraw < 0.35) {
      const event = newEvent();
      headers[HEADERS.webhookId] = event.id;
      body = encoder.encode(event.body);
      label = 'new event';
      expect = [200];
    } else if (bodyDraw < 0.5 && recent.length > 0) {
      const event = pick(random, recent);
      headers[HEADERS.webhookId] = event.id;
      body = encoder.encode(event.body);
      label = 'duplicate';
      // 401 if this copy carries no valid key; 409 while the first copy is still being handled.
      expect = [200, 409];
    } else if (bodyDraw < 0.9) {
      body = mutate(JSON.stringify({ ...sampleStatusWebhook, sessionId: `mut_${serial++}` }));
      if (random() < 0.5) headers[HEADERS.webhookId] = random() < 0.5 ? `mut_${serial}` : printable(random, 300);
      label = 'mutated body';
    } else if (bodyDraw < 0.998) {
      body = randomBytes(random, between(random, 0, 2000));
      label = 'random bytes';
    } else {
      body = new Uint8Array(MAX_BODY + between(random, 1, 200_000)).fill(0x20);
      label = 'oversized body';
      expect = [413];
    }
    if (method === 'GET' || method === 'HEAD') body = undefined;
    if (method !== 'POST') {
      label = `${method} request`;
      expect = [405];
    } else if (auth !== 'valid') {
      label = `${label}, ${auth} key`;
      expect = label.startsWith('oversized') ? [401, 413] : [401];
    }
    const chunks =
      body !== undefined && random() < 0.1
        ? Array.from({ length: between(random, 1, 6) }, () => between(random, 1, Math.max(1, body.length)))
        : undefined;
    return { kind: 'http', label, method, headers, body, chunks, expect };
  };

  function rawCase(): RawCase {
    const event = newEvent();
    // `connection: close`, so the end of the answer is the end of the socket.
    const good = (extra = '') =>
      `POST /webhooks/kyc HTTP/1.1\r\nhost: x\r\nconnection: close\r\nauthorization: Bearer ${key}\r\nwebhook-id: ${event.id}\r\ncontent-type: application/json\r\n${extra}`;
    const one = (text: string, label: string, expect: readonly number[] | undefined, hangUp = false): RawCase => ({
      kind: 'raw',
      label,
      parts: [encoder.encode(text)],
      gapMs: 0,
      hangUp,
      expect,
    });
    switch (between(random, 0, 10)) {
      case 0: {
        // Valid chunked framing, random chunk boundaries.
        const bytes = event.body;
        let text = good('transfer-encoding: chunked\r\n\r\n');
        for (let at = 0; at < bytes.length; ) {
          const size = between(random, 1, 200);
          const chunk = bytes.slice(at, at + size);
          text += `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`;
          at += size;
        }
        return one(`${text}0\r\n\r\n`, 'raw: chunked body', [200, 409]);
      }
      case 1:
        return one(
          good(`content-length: ${event.body.length}\r\ntransfer-encoding: chunked\r\n\r\n`) + event.body,
          'raw: Content-Length and Transfer-Encoding',
          [400],
        );
      case 2:
        return one(good('transfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'), 'raw: bad chunk size', [400]);
      case 3:
        return one(`${printable(random, 80)}\r\nconnection: close\r\n\r\n`, 'raw: garbage request line', undefined);
      case 4:
        return one(
          good(`x-big: ${'a'.repeat(between(random, 17_000, 40_000))}\r\ncontent-length: 2\r\n\r\n{}`),
          'raw: header too large',
          [431],
        );
      case 5: {
        const second = newEvent();
        const two =
          `${good(`content-length: ${Buffer.byteLength(event.body)}\r\n\r\n`).replace('connection: close\r\n', '')}${event.body}` +
          `POST /webhooks/kyc HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\nwebhook-id: ${second.id}\r\ncontent-length: ${Buffer.byteLength(second.body)}\r\n\r\n${second.body}` +
          'GET /webhooks/kyc HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n';
        return one(two, 'raw: three pipelined requests', [200, 405]);
      }
      case 6:
        return one(
          `${good(`content-length: ${Buffer.byteLength(event.body) + 500}\r\n\r\n`)}${event.body}`,
          'raw: body shorter than Content-Length, then hang-up',
          undefined,
          true,
        );
      case 7:
        return one(`${good(`content-length: 5\r\n\r\n`)}${event.body}`, 'raw: body longer than Content-Length', [400]);
      case 8: {
        // Slow-loris: the request trickles in; it must still be answered, and never hang.
        if (random() < 0.98)
          return one(
            good(`content-length: ${Buffer.byteLength(event.body)}\r\n\r\n${event.body}`),
            'raw: plain request',
            [200, 409],
          );
        const text = `${good(`content-length: ${Buffer.byteLength(event.body)}\r\n\r\n`)}${event.body}`;
        const parts: Uint8Array[] = [];
        for (let at = 0; at < text.length; at += 40) parts.push(encoder.encode(text.slice(at, at + 40)));
        return {
          kind: 'raw',
          label: 'raw: slow-loris request',
          parts,
          gapMs: between(random, 5, 40),
          hangUp: false,
          expect: [200, 409],
        };
      }
      case 9: {
        // An oversized chunked body: answered 413 without reading it all (rare: 1.3 MB each).
        if (random() < 0.95)
          return one(
            good(`content-length: ${Buffer.byteLength(event.body)}\r\n\r\n${event.body}`),
            'raw: plain request',
            [200, 409],
          );
        const chunk = 'a'.repeat(64 * 1024);
        const parts = [encoder.encode(good('transfer-encoding: chunked\r\n\r\n'))];
        for (let i = 0; i < 20; i++) parts.push(encoder.encode(`${chunk.length.toString(16)}\r\n${chunk}\r\n`));
        parts.push(encoder.encode('0\r\n\r\n'));
        return { kind: 'raw', label: 'raw: oversized chunked body', parts, gapMs: 0, hangUp: false, expect: [413] };
      }
      default:
        return one(
          good(
            `content-length: ${Buffer.byteLength(event.body)}\r\nwebhook-id: second\r\nauthorization: Bearer nope-nope-nope-nope\r\n\r\n${event.body}`,
          ),
          'raw: repeated headers',
          undefined,
        );
    }
  }
}
