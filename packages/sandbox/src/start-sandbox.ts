import { createSandbox, type Sandbox } from './create-sandbox.js';
import { SandboxError } from './sandbox-error.js';
import type { SandboxOptions } from './sandbox-options.js';
import { selfSignedCertificate } from './server/certificate.js';
import { listen } from './server/listen.js';

/** Options of {@link startSandbox}. */
export interface StartSandboxOptions extends SandboxOptions {
  /** Port to listen on (0 picks a free one; default 0). */
  readonly port?: number;
  /** Address to listen on (default `127.0.0.1`: the sandbox is local). */
  readonly host?: string;
  /** Serve over HTTPS: `true` makes a self-signed certificate at start; or give your own PEM pair. */
  readonly https?: boolean | { readonly key: string; readonly cert: string };
}

/** A listening sandbox. */
export interface RunningSandbox {
  readonly sandbox: Sandbox;
  /** The base URL, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** The certificate (PEM) when serving HTTPS, to trust in clients. */
  readonly certificate: string | undefined;
  /** Graceful shutdown: stop taking requests, let attempts in flight end, close the databases. */
  close(): Promise<void>;
}

/**
 * Creates a sandbox and serves it over HTTP or HTTPS on loopback.
 *
 * @example
 * ```ts
 * const running = await startSandbox({ dataDir: './sandbox-data', port: 8080 });
 * console.log(`dashboard: ${running.url}/login`);
 * process.once('SIGINT', () => void running.close());
 * ```
 */
export async function startSandbox(options: StartSandboxOptions): Promise<RunningSandbox> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new SandboxError('invalid_option', `port must be an integer from 0 to 65535 (got ${String(options.port)})`);
  }
  const tls = options.https === true ? await selfSignedCertificate() : options.https || undefined;
  const sandbox = await createSandbox({ ...options, secureCookies: options.secureCookies ?? tls !== undefined });
  let server: Awaited<ReturnType<typeof listen>>;
  try {
    server = await listen(sandbox.fetch, { port, host: options.host ?? '127.0.0.1', tls });
  } catch (error) {
    await sandbox.close();
    throw error;
  }
  if (options.publicUrl === undefined) sandbox.setPublicUrl(server.url);
  server.server.on('upgrade', sandbox.handleUpgrade);
  await sandbox.start();
  return {
    sandbox,
    url: server.url,
    certificate: tls?.cert,
    async close() {
      // The listeners' WebSockets stay open until the engine has stopped (sandbox.close), so
      // forwarded attempts in flight can still report; the server's close waits for them.
      const closing = server.close();
      await sandbox.close();
      await closing;
    },
  };
}
