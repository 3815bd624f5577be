import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { pause } from './pause.js';
import { redisAnswers } from './redis-answers.js';

/**
 * A redis-server of our own on a free port, with the append-only file fsynced on every write
 * (`appendfsync always`): the durability a dedupe store needs to survive a restart. `crash()` is
 * SIGKILL; `start()` brings it back on the same port and files.
 */
export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  crash(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function startPrivateRedis(
  dir: string,
  options: { readonly persistence?: 'always' | 'none' } = {},
): Promise<PrivateRedis> {
  const root = join(dir, 'redis');
  mkdirSync(root, { recursive: true });
  const port = await freePort();
  const persistence =
    options.persistence === 'none' ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always'];
  let child: ChildProcess | undefined;
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', root, ...persistence],
        { stdio: 'ignore' },
      );
      live.add(child);
      for (let i = 0; i < 100 && !(await redisAnswers(port)); i++) await pause(50);
    },
    async crash() {
      if (child === undefined) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      live.delete(child);
      child = undefined;
    },
    destroy: () => redis.crash(),
  };
  await redis.start();
  return redis;
}
