import { execFileSync } from 'node:child_process';

/**
 * A network namespace of our own joined to this one by a veth pair: the far end gets
 * `10.231.<n>.2`, this end `10.231.<n>.1`. `partition()` / `heal()` take the far end down and up:
 * our end keeps its route (marked linkdown), so every packet is dropped silently, as in a real
 * partition. (Taking our own end down would remove the route, and the packets would leave the
 * machine by the default route: a blackhole route for the subnet stays underneath as a guard.)
 * Removed on `destroy()` and on exit.
 */
export interface NetworkNamespace {
  readonly name: string;
  readonly hostAddress: string;
  readonly farAddress: string;
  /** The command prefix that runs a process inside the namespace. */
  readonly exec: readonly string[];
  partition(): void;
  heal(): void;
  destroy(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });

/**
 * The guard first: a blackhole route for the subnet, so nothing for it may ever take the
 * default route out. Adding it also claims the subnet: when another run on the machine (or one
 * that was killed before it could clean up) holds it, the add fails and the next one is tried.
 */
function claimSubnet(first: number): string {
  for (let i = 0; i < 250; i++) {
    const subnet = `10.231.${(first + i) % 250}`;
    try {
      ip('route', 'add', 'blackhole', `${subnet}.0/30`, 'metric', '4000');
      return subnet;
    } catch {
      // Taken: try the next.
    }
  }
  throw new Error('no free 10.231.x.0/30 subnet for a network namespace (ip route show type blackhole)');
}

/** `label` (one letter) tells apart the namespaces of one run; interface names stay under 16 characters. */
export function createNetworkNamespace(label = 'n'): NetworkNamespace {
  const tag = process.pid % 100_000;
  const name = `kyc-chaos-${tag}${label}`;
  const near = `kc${tag}${label}a`;
  const far = `kc${tag}${label}b`;
  const subnet = claimSubnet((tag + label.charCodeAt(0)) % 250);
  const namespace: NetworkNamespace = {
    name,
    hostAddress: `${subnet}.1`,
    farAddress: `${subnet}.2`,
    exec: ['ip', 'netns', 'exec', name],
    partition: () => ip('netns', 'exec', name, 'ip', 'link', 'set', far, 'down'),
    heal: () => ip('netns', 'exec', name, 'ip', 'link', 'set', far, 'up'),
    destroy: () => {
      for (const args of [
        // Deleting the namespace deletes its end of the pair, and with it ours.
        ['netns', 'del', name],
        ['route', 'del', 'blackhole', `${subnet}.0/30`, 'metric', '4000'],
      ]) {
        try {
          ip(...args);
        } catch {
          // Already gone.
        }
      }
    },
  };
  process.once('exit', namespace.destroy);
  try {
    ip('netns', 'add', name);
    ip('link', 'add', near, 'type', 'veth', 'peer', 'name', far);
    ip('link', 'set', far, 'netns', name);
    ip('addr', 'add', `${subnet}.1/30`, 'dev', near);
    ip('link', 'set', near, 'up');
    ip('netns', 'exec', name, 'ip', 'addr', 'add', `${subnet}.2/30`, 'dev', far);
    ip('netns', 'exec', name, 'ip', 'link', 'set', far, 'up');
    ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
  } catch (error) {
    namespace.destroy();
    throw error;
  }
  return namespace;
}
