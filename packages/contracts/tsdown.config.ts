import { defineConfig } from 'tsdown';
import { base } from '../../tsdown.base.ts';

export default defineConfig({
  ...base,
  // `service-api` and `webhook-reader` are entries of their own so that a client or a receiver
  // importing only them gets no classic zod: a bundler cannot drop the schemas' top-level calls
  // from a file that also holds what it needs.
  entry: ['src/index.ts', 'src/service-api.ts', 'src/webhook-reader.ts', 'src/openapi.ts'],
  platform: 'neutral',
});
