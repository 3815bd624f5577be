import { defineConfig } from 'tsdown';
import { base } from '../../tsdown.base.ts';

export default defineConfig([
  { ...base, entry: ['src/index.ts'], platform: 'node' },
  // The `kyc-sandbox` bin: ESM only, keeps its shebang, no declarations.
  { ...base, entry: ['src/cli.ts'], format: ['esm'], dts: false, clean: false, platform: 'node' },
]);
