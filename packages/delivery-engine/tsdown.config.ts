import { defineConfig } from 'tsdown';
import { base } from '../../tsdown.base.ts';

export default defineConfig({
  ...base,
  entry: ['src/index.ts', 'src/postgres.ts'],
  platform: 'node',
});
