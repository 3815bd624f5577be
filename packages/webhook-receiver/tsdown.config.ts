import { defineConfig } from 'tsdown';
import { base } from '../../tsdown.base.ts';

export default defineConfig([
  {
    ...base,
    entry: [
      'src/index.ts',
      'src/audit.ts',
      'src/audit-file.ts',
      'src/node.ts',
      'src/fastify.ts',
      'src/koa.ts',
      'src/hono.ts',
      'src/cloudflare.ts',
      'src/aws-lambda.ts',
      'src/redis.ts',
      'src/postgres.ts',
      'src/inbox.ts',
      'src/inbox-pg.ts',
      'src/inbox-drizzle.ts',
      'src/inbox-kysely.ts',
      'src/inbox-knex.ts',
      'src/inbox-mysql2.ts',
      'src/testing.ts',
    ],
    // The core runs on edge runtimes: nothing may resolve through Node's conditions.
    platform: 'neutral',
  },
  // The `kyc-audit` bin: ESM only, keeps its shebang, no declarations.
  { ...base, entry: ['src/cli/kyc-audit.ts'], format: ['esm'], dts: false, clean: false, platform: 'node' },
]);
