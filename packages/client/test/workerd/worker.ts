// A Worker that uses the client as a Cloudflare Worker would, bundled by the test like wrangler
// does. It runs each case against the service URL it is given and answers what came of it.
import { env as moduleEnv } from 'cloudflare:workers';
import { KycClient } from '../../src/index.js';

interface Env {
  readonly BASE_URL: string;
  readonly PASSWORD: string;
}

// A client made at module scope, as most Workers make their objects: workerd refuses the whole
// Worker if making it draws random values, starts a timer or does I/O.
const bindings = moduleEnv as unknown as Env;
const moduleScoped = new KycClient({ baseUrl: bindings.BASE_URL, username: 'acme', password: bindings.PASSWORD });

/** What one call ended with: the session id, or the error's class, reason/status and message. */
async function outcome(call: () => Promise<{ id: string }>): Promise<Record<string, unknown>> {
  try {
    return { id: (await call()).id };
  } catch (error) {
    const { name, message, status, reason, kind } = error as Error & Record<string, unknown>;
    return { error: name, message, status, reason, kind };
  }
}

export default {
  async fetch(_request: Request, env: Env): Promise<Response> {
    const retries: number[] = [];
    const options = { baseUrl: env.BASE_URL, username: 'acme', password: env.PASSWORD, random: () => 0 };
    const client = new KycClient({ ...options, onRetry: (event) => retries.push(event.attempt) });
    const impatient = new KycClient({ ...options, timeoutMs: 200, maxRetries: 0 });
    const results = {
      finish: await outcome(() => client.finishSession('sess_workerd_1')),
      encoded: await outcome(() => client.getSession('a/b ü')),
      missing: await outcome(() => client.getSession('missing')),
      flaky: await outcome(() => client.getSession('flaky')),
      refused: await outcome(() => client.getSessionByDetailsUrl('https://evil.test/api/v1/kyc/session/x')),
      timeout: await outcome(() => impatient.getSession('hang')),
      moduleScoped: await outcome(() => moduleScoped.getSession('module-scoped')),
      retries,
    };
    return Response.json(results);
  },
};
