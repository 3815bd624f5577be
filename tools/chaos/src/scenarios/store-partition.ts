import { type ChildProcess, spawn } from 'node:child_process';
import { HEADERS, sampleStatusWebhook } from '@kyc/contracts';
import { createWebhookReceiver, type IdempotencyStore } from '@kyc/webhook-receiver';
import { redisIdempotencyStore } from '@kyc/webhook-receiver/redis';
import { Redis } from 'ioredis';
import { CHAOS_KEY } from '../support/chaos-receiver.js';
import { createNetworkNamespace } from '../support/network-namespace.js';
import { pause } from '../support/pause.js';
import { redisAnswers } from '../support/redis-answers.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';

const PORT = 6390;

/** Sends one delivery to an in-process receiver; resolves with its status, or 'no answer' after `limitMs`. */
async function deliver(store: IdempotencyStore, id: string, limitMs: number) {
  const receiver = createWebhookReceiver({
    authKeys: CHAOS_KEY,
    idempotencyStore: store,
    logger: {},
    onEvent: () => {},
  });
  const started = Date.now();
  const answer = await Promise.race([
    receiver
      .handle(
        new Request('http://receiver.invalid/', {
          method: 'POST',
          headers: { authorization: `Bearer ${CHAOS_KEY}`, [HEADERS.webhookId]: id },
          body: JSON.stringify({ ...sampleStatusWebhook, sessionId: id }),
        }),
      )
      .then((response) => response.status),
    pause(limitMs).then(() => 'no answer' as const),
  ]);
  return { answer, ms: Date.now() - started };
}

export const storePartition: Scenario = {
  name: 'store-partition',
  title: 'Receiver whose Redis is cut off by a network partition (packets dropped, not refused)',
  breaks: ['no-command-timeout'],
  // The receiver must answer 503 within 3 s during the partition: a time bound.
  alone: true,
  async run(context: RunContext) {
    const invariants = new Invariants();
    const ns = createNetworkNamespace('r');
    let server: ChildProcess | undefined;
    const clients: Redis[] = [];
    try {
      server = spawn(
        'ip',
        [
          'netns',
          'exec',
          ns.name,
          'redis-server',
          '--port',
          String(PORT),
          '--bind',
          ns.farAddress,
          '--save',
          '',
          '--appendonly',
          'no',
          // Clients come from outside the namespace: without a password Redis refuses them otherwise.
          '--protected-mode',
          'no',
        ],
        { stdio: 'ignore' },
      );
      for (let i = 0; i < 100 && !(await redisAnswers(PORT, ns.farAddress)); i++) await pause(50);
      // The few options compared here (ioredis' own RedisOptions type does not fit exactOptionalPropertyTypes).
      const client = (options: {
        commandTimeout?: number;
        maxRetriesPerRequest?: number;
        enableOfflineQueue?: boolean;
      }) => {
        const redis = new Redis(PORT, ns.farAddress, options);
        redis.on('error', () => undefined);
        clients.push(redis);
        return redis;
      };
      // What we recommend: a command timeout, no offline queue.
      const bounded = redisIdempotencyStore(
        // The broken build: the recommended client without its command timeout.
        client(
          context.breakWith === 'no-command-timeout'
            ? { maxRetriesPerRequest: 1, enableOfflineQueue: false }
            : { commandTimeout: 1000, maxRetriesPerRequest: 1, enableOfflineQueue: false },
        ),
      );
      // ioredis as it comes.
      const defaults = redisIdempotencyStore(client({}));
      for (let i = 0; i < 50; i++) {
        if ((await deliver(bounded, `warm-${i}`, 2000)).answer === 200) break;
        await pause(100);
      }
      const before = await deliver(defaults, 'before', 5000);
      invariants.check(
        before.answer === 200,
        'the receiver did not answer 200 before the partition',
        () => `${before.answer}`,
      );

      ns.partition();
      const boundedAnswers = [];
      for (let i = 0; i < 5; i++) boundedAnswers.push(await deliver(bounded, `cut-${i}`, 10_000));
      for (const [i, a] of boundedAnswers.entries()) {
        invariants.check(
          a.answer === 503 && a.ms < 3000,
          'with a command timeout, a partitioned Redis did not give a prompt 503',
          () => `request ${i}: ${a.answer} after ${a.ms} ms`,
        );
      }
      const limit = context.mode === 'full' ? 35_000 : 8000;
      const unbounded = await deliver(defaults, 'cut-default', limit);
      ns.heal();

      let healedAfter = -1;
      const healed = Date.now();
      for (let i = 0; i < 100; i++) {
        if ((await deliver(bounded, `healed-${i}`, 2000)).answer === 200) {
          healedAfter = Date.now() - healed;
          break;
        }
        await pause(100);
      }
      invariants.check(healedAfter >= 0, 'the receiver did not answer 200 again after the partition healed');
      return {
        figures: [
          [
            'ioredis with commandTimeout 1000, no offline queue: answers during the partition',
            boundedAnswers.map((a) => `${a.answer} in ${a.ms} ms`).join(', '),
          ],
          [
            'ioredis defaults: the answer during the partition',
            unbounded.answer === 'no answer'
              ? `none within ${limit / 1000} s (the sender's 30 s deadline passes first)`
              : `${unbounded.answer} in ${unbounded.ms} ms`,
          ],
          ['first 200 after the link came back (ms)', healedAfter],
        ],
        failures: invariants.failures,
      };
    } finally {
      for (const redis of clients) redis.disconnect();
      server?.kill('SIGKILL');
      ns.destroy();
    }
  },
};
