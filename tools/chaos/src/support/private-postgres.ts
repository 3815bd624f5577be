import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/**
 * A Postgres cluster of our own: `initdb` in a temporary directory, a free port, started and
 * stopped with `pg_ctl` as the `postgres` user (both refuse root). Never the shared server on
 * 5432. `stopImmediate()` is the crash: no checkpoint, recovery from the WAL on the next start.
 */
export interface PrivatePostgres {
  readonly url: string;
  readonly port: number;
  stopImmediate(): void;
  start(): void;
  /** Stops it (immediately) and removes its files; safe to call twice. */
  destroy(): void;
}

function binary(name: string): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  const version = versions[0];
  if (version === undefined) throw new Error('no PostgreSQL under /usr/lib/postgresql (apt-get install postgresql)');
  return `/usr/lib/postgresql/${version}/bin/${name}`;
}

const live = new Set<PrivatePostgres>();
// A scenario that throws still must not leave a cluster running: stop every one on exit.
process.once('exit', () => {
  for (const cluster of live) cluster.destroy();
});

export async function startPrivatePostgres(dir: string): Promise<PrivatePostgres> {
  const root = join(dir, 'postgres');
  const data = join(root, 'data');
  mkdirSync(root, { recursive: true });
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(dir, uid, gid);
  chownSync(root, uid, gid);
  const asPostgres = (command: string, args: string[]) =>
    execFileSync('runuser', ['-u', 'postgres', '--', binary(command), ...args], { stdio: 'pipe', timeout: 60_000 });
  asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${root}`,
    '-c shared_buffers=32MB',
    '-c max_connections=200',
    // Durability stays at its defaults (fsync, synchronous_commit on): the restarts test them.
  ].join(' ');
  let running = false;
  const cluster: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start() {
      asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(root, 'log'), '-w', '-t', '60', 'start']);
      running = true;
    },
    stopImmediate() {
      if (!running) return;
      asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      running = false;
    },
    destroy() {
      try {
        cluster.stopImmediate();
      } catch {
        // Already gone: nothing to stop.
      }
      live.delete(cluster);
      rmSync(root, { recursive: true, force: true });
    },
  };
  live.add(cluster);
  cluster.start();
  return cluster;
}
