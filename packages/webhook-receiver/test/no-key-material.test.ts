import { createServer } from 'node:http';
import { inspect } from 'node:util';
import { HEADERS, sampleStatusWebhook } from '@kyc/contracts';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWebhookReceiver, parseWebhook, type ReceiverLogger, verifyAuthorization } from '../src/index.js';
import { toNodeHandler } from '../src/node.js';
import { sendOverHttp } from './support/fetch-send.js';
import { listen } from './support/listen.js';

const KEY = 'kyc_secret_Hq7Yw2Rn9Lc4Vb1X';
const OLD_KEY = 'kyc_secret_Pz3Ke8Ju5Ma0Td6S';
const SIGNING_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** Every fragment of 6+ characters of every secret: none may appear anywhere. */
const fragments = [KEY, OLD_KEY, SIGNING_SECRET].flatMap((secret) =>
  Array.from({ length: secret.length - 5 }, (_, start) => secret.slice(start, start + 6)).filter(
    (fragment) => !['kyc_se', 'yc_sec', 'c_secr', '_secre', 'secret', 'ecret_', 'whsec_'].includes(fragment),
  ),
);

function expectClean(text: string): void {
  for (const fragment of fragments) expect(text, `leaked "${fragment}"`).not.toContain(fragment);
}

describe('no key material in responses, errors or log lines', () => {
  it('holds across every rejection, a failing handler, and a misconfiguration', async () => {
    const captured: string[] = [];
    const logger: ReceiverLogger = Object.fromEntries(
      (['debug', 'info', 'warn', 'error'] as const).map((level) => [
        level,
        (message: string, fields?: unknown) => captured.push(`${level} ${message} ${JSON.stringify(fields)}`),
      ]),
    );
    const receiver = createWebhookReceiver({
      authKeys: [KEY, OLD_KEY],
      signingSecrets: SIGNING_SECRET,
      logger,
      onEvent: () => {
        throw new Error('handler broke');
      },
    });
    const server = await listen(createServer(toNodeHandler(receiver)));
    try {
      const authorizations = [
        `Bearer ${KEY}`,
        `Bearer ${KEY}x`,
        `Bearer ${KEY.slice(0, 12)}`,
        `Basic ${OLD_KEY}`,
        KEY,
        '',
      ];
      for (const authorization of authorizations) {
        for (const body of [JSON.stringify(sampleStatusWebhook), `{"token":"${KEY}"`, '']) {
          const reply = await sendOverHttp(server.baseUrl, {
            headers: {
              [HEADERS.authorization]: authorization,
              [HEADERS.webhookId]: 'msg_1',
              [HEADERS.webhookTimestamp]: String(Math.floor(Date.now() / 1000)),
              [HEADERS.webhookSignature]: `v1,${btoa(KEY)}`,
            },
            body,
          });
          captured.push(`${reply.status} ${JSON.stringify([...reply.headers])} ${reply.text}`);
        }
      }
      // A correctly signed, authorised delivery reaches the failing handler: its error is logged too.
      const body = JSON.stringify(sampleStatusWebhook);
      const at = new Date();
      const reply = await sendOverHttp(server.baseUrl, {
        headers: {
          [HEADERS.authorization]: `Bearer ${OLD_KEY}`,
          [HEADERS.webhookId]: 'msg_2',
          [HEADERS.webhookTimestamp]: String(Math.floor(at.getTime() / 1000)),
          [HEADERS.webhookSignature]: new Webhook(SIGNING_SECRET).sign('msg_2', at, body),
        },
        body,
      });
      captured.push(`${reply.status} ${JSON.stringify([...reply.headers])} ${reply.text}`);
    } finally {
      await server.close();
    }
    expect(captured.some((line) => line.startsWith('500'))).toBe(true);
    expect(captured.some((line) => line.includes('handler broke'))).toBe(true);
    expect(captured.some((line) => line.startsWith('401'))).toBe(true);
    expect(captured.some((line) => line.startsWith('warn'))).toBe(true);
    expectClean(captured.join('\n'));
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('holds for the default console logger, even when a handler error quotes the key', async () => {
    const printed: string[] = [];
    for (const level of ['log', 'debug', 'info', 'warn', 'error'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        printed.push(inspect(args, { depth: 10 }));
      });
    }
    const receiver = createWebhookReceiver({
      authKeys: [KEY, OLD_KEY],
      signingSecrets: SIGNING_SECRET,
      onEvent: () => {
        throw new Error(`upstream refused Bearer ${KEY} (secret ${SIGNING_SECRET.slice(6)})`);
      },
    });
    const body = JSON.stringify(sampleStatusWebhook);
    const at = new Date();
    const signed = {
      [HEADERS.authorization]: `Bearer ${KEY}`,
      [HEADERS.webhookId]: 'msg_3',
      [HEADERS.webhookTimestamp]: String(Math.floor(at.getTime() / 1000)),
      [HEADERS.webhookSignature]: new Webhook(SIGNING_SECRET).sign('msg_3', at, body),
    };
    const failed = await receiver.handle(new Request('http://r.test/', { method: 'POST', headers: signed, body }));
    printed.push(`${failed.status} ${await failed.text()}`);
    // A body read before the receiver: logged as a misconfiguration.
    const used = new Request('http://r.test/', { method: 'POST', headers: signed, body });
    await used.text();
    const misconfigured = await receiver.handle(used);
    printed.push(`${misconfigured.status} ${await misconfigured.text()}`);
    expect(failed.status).toBe(500);
    expect(misconfigured.status).toBe(500);
    expect(printed.join('\n')).toContain('upstream refused Bearer [redacted]');
    expect(printed.join('\n')).toContain('already read');
    expectClean(printed.join('\n'));
  });

  it('a logger that throws changes no answer and runs no handler twice', async () => {
    let runs = 0;
    let fail = true;
    const explode = () => {
      throw new Error('logger down');
    };
    const receiver = createWebhookReceiver({
      authKeys: KEY,
      logger: { debug: explode, info: explode, warn: explode, error: explode },
      onEvent: () => {
        runs++;
        if (fail) throw new Error('handler broke');
      },
    });
    const send = async (authorization: string) =>
      (
        await receiver.handle(
          new Request('http://r.test/', {
            method: 'POST',
            headers: { [HEADERS.authorization]: authorization },
            body: JSON.stringify(sampleStatusWebhook),
          }),
        )
      ).status;
    expect(await send(`Bearer ${OLD_KEY}`)).toBe(401);
    expect(await send(`Bearer ${KEY}`)).toBe(500);
    fail = false;
    expect(await send(`Bearer ${KEY}`)).toBe(200);
    expect(await send(`Bearer ${KEY}`)).toBe(200);
    expect(runs).toBe(2);
  });

  it('holds for configuration errors and parse errors', () => {
    const lines: string[] = [];
    for (const authKeys of [[KEY, KEY.slice(0, 10)], [` ${KEY}`], KEY.slice(0, 15)]) {
      try {
        createWebhookReceiver({ authKeys, onEvent: () => undefined });
      } catch (error) {
        lines.push(String(error), JSON.stringify(error), (error as Error).stack ?? '');
      }
    }
    try {
      parseWebhook(`{"key":"${KEY}"`);
    } catch (error) {
      lines.push(String(error), JSON.stringify(error));
    }
    lines.push(JSON.stringify(verifyAuthorization(`Bearer ${KEY}`, OLD_KEY)));
    expect(lines.length).toBeGreaterThan(6);
    expectClean(lines.join('\n'));
  });
});
