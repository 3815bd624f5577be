import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import type { RecordedDecision, StartedExample } from './receiver-example-suite.js';

// Its own entry (`@kyc/test-support/workerd`): only the suites that run workerd load Miniflare.

/**
 * Bundles a Worker the way wrangler does (esbuild, one ES module, the `workerd`/`worker`/
 * `browser` conditions, nothing of Node's, the runtime's own `cloudflare:` modules left to
 * workerd), here with the workspace sources (`@kyc/source`).
 */
export async function bundleWorker(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['@kyc/source', 'workerd', 'worker', 'browser', 'import'],
    mainFields: ['browser', 'module', 'main'],
    external: ['cloudflare:*'],
    write: false,
    logLevel: 'silent',
  });
  // A warning a customer's `wrangler deploy` would print fails the example's build here.
  if (result.warnings.length > 0) {
    throw new Error(`esbuild warned while bundling ${entry}:\n${result.warnings.map((w) => w.text).join('\n')}`);
  }
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error(`esbuild produced no bundle for ${entry}`);
  return output.text;
}

/** What a Worker runs with: its bundle, its bindings, its compatibility date. */
export interface WorkerOptions {
  readonly script: string;
  readonly compatibilityDate: string;
  readonly bindings?: Readonly<Record<string, string>>;
  /** Binding name → exported Durable Object class name. */
  readonly durableObjects?: Readonly<Record<string, string>>;
  /** Each line the Worker writes to stdout (its `console.log`/`console.info`). */
  readonly onLine?: (line: string) => void;
}

/** Runs a bundled Worker in workerd (through Miniflare, with the workerd binary its npm package ships). */
export async function startWorker(options: WorkerOptions): Promise<{ miniflare: Miniflare; url: URL }> {
  let pending = '';
  const miniflare = new Miniflare({
    // The bundle as one explicit module, as wrangler uploads it: Miniflare then does not walk its
    // imports, so a dynamic import of an optional peer (the receiver's `@opentelemetry/api`)
    // fails at run time in workerd, as on Cloudflare, instead of refusing the whole Worker.
    modules: [{ type: 'ESModule', path: 'worker.mjs', contents: options.script }],
    compatibilityDate: options.compatibilityDate,
    bindings: { ...options.bindings },
    durableObjects: { ...options.durableObjects },
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      stdout.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (pending + chunk).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) options.onLine?.(line);
      });
      stderr.setEncoding('utf8').on('data', (chunk: string) => process.stderr.write(chunk));
    },
  });
  return { miniflare, url: await miniflare.ready };
}

/** The fields of `wrangler.jsonc` a test needs. */
interface WranglerConfig {
  readonly main: string;
  readonly compatibility_date: string;
  readonly durable_objects?: { readonly bindings: readonly { name: string; class_name: string }[] };
}

const QUIET_MS = 100;

/**
 * Starts an example Worker from its folder as `wrangler deploy` would build it: `wrangler.jsonc`
 * gives the entry, the compatibility date and the Durable Object bindings; `vars` are the
 * secrets. The Worker's JSON decision lines (stdout) go to `onDecision`.
 */
export async function startWorkerExample(
  dir: string,
  vars: Readonly<Record<string, string>>,
  onDecision: (decision: RecordedDecision) => void,
  path = '/webhooks/kyc',
): Promise<StartedExample> {
  const config = JSON.parse(readFileSync(join(dir, 'wrangler.jsonc'), 'utf8')) as WranglerConfig;
  let lastLineAt = Date.now();
  const { miniflare, url } = await startWorker({
    script: await bundleWorker(join(dir, config.main)),
    compatibilityDate: config.compatibility_date,
    bindings: vars,
    durableObjects: Object.fromEntries((config.durable_objects?.bindings ?? []).map((b) => [b.name, b.class_name])),
    onLine(line) {
      lastLineAt = Date.now();
      if (!line.startsWith('{')) return;
      try {
        const value = JSON.parse(line) as Partial<RecordedDecision>;
        if (typeof value.sessionId === 'string' && typeof value.action === 'string') {
          onDecision(value as RecordedDecision);
        }
      } catch {
        // Not a decision line.
      }
    },
  });
  return {
    url: new URL(path, url).href,
    close: () => miniflare.dispose(),
    async settle() {
      while (Date.now() - lastLineAt < QUIET_MS) await new Promise((done) => setTimeout(done, QUIET_MS));
    },
  };
}
