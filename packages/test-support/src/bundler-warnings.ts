import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build as esbuild } from 'esbuild';
import { createLogger, createServer, type Logger, build as viteBuild } from 'vite';

// Its own entry (`@kyc/test-support/bundler-warnings`): only the suites that check bundlers load Vite.

/** What each bundler a customer may use said about one entry: every warning, as text. */
export interface BundlerWarnings {
  /** esbuild as wrangler runs it for a Worker (platform neutral, the `workerd` conditions). */
  readonly esbuild: readonly string[];
  /** `vite build` of a library that imports the entry. */
  readonly viteBuild: readonly string[];
  /** Vite's dev server transforming the entry's files, for the browser and for SSR. */
  readonly viteDev: readonly string[];
}

function recordingLogger(warnings: string[]): Logger {
  const logger = createLogger('warn');
  logger.warn = (message) => warnings.push(message);
  logger.warnOnce = (message) => warnings.push(message);
  return logger;
}

/**
 * Bundles `source` (a module that imports the packages under test, resolved from `resolveDir`)
 * with esbuild and Vite, and returns what they warn about. The packages come from their published
 * build, as a customer's bundler gets them (`pnpm build` first).
 */
export async function bundlerWarnings(source: string, resolveDir: string): Promise<BundlerWarnings> {
  const esbuildResult = await esbuild({
    stdin: { contents: source, resolveDir, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser', 'import'],
    mainFields: ['browser', 'module', 'main'],
    external: ['cloudflare:*'],
    write: false,
    logLevel: 'silent',
  });
  const dir = mkdtempSync(join(resolveDir, '.tmp-bundlers-'));
  try {
    const entry = join(dir, 'entry.js');
    writeFileSync(entry, source);
    const built: string[] = [];
    await viteBuild({
      root: dir,
      configFile: false,
      logLevel: 'warn',
      customLogger: recordingLogger(built),
      build: {
        write: false,
        outDir: join(tmpdir(), 'kyc-vite-out'),
        lib: { entry, formats: ['es'] },
        rollupOptions: { onwarn: (warning) => void built.push(warning.message) },
      },
    });
    const dev: string[] = [];
    const server = await createServer({
      root: dir,
      configFile: false,
      logLevel: 'warn',
      customLogger: recordingLogger(dev),
      server: { middlewareMode: true, hmr: false, ws: false },
      // Transform the packages' own files, as Vite does for linked (workspace) packages.
      optimizeDeps: { noDiscovery: true },
    });
    try {
      // Every module the entry reaches, for the browser and for SSR (each import found by a transform).
      for (const ssr of [false, true]) {
        const done = new Set<string>();
        let pending = ['/entry.js'];
        while (pending.length > 0) {
          for (const url of pending) {
            done.add(url);
            await server.transformRequest(url, { ssr });
          }
          pending = [...server.moduleGraph.urlToModuleMap.keys()].filter((url) => !done.has(url));
        }
      }
    } finally {
      await server.close();
    }
    return {
      esbuild: esbuildResult.warnings.map((warning) => warning.text),
      viteBuild: built,
      viteDev: dev,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
