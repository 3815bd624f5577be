/**
 * The most each tarball may weigh, in bytes: `size` is the .tgz npm uploads (what every install
 * downloads), `unpackedSize` what it takes in node_modules. `npm pack --dry-run --json` measures
 * both; tarballs.test.ts prints them and fails over a budget.
 *
 * How they were set (issue 28, 2026-11-27): the sizes after the demo left @kyc/sandbox and the
 * source maps stopped embedding the sources that ship beside them (CONTRIBUTING.md, "What a
 * package ships"), plus about 15 % for growth, rounded up to 10 KB. Then, packed / unpacked:
 * client 113 / 440 KB, contracts 115 / 545 KB, delivery-engine 271 / 920 KB, sandbox 386 /
 * 1 335 KB, webhook-receiver 233 / 861 KB (before: 156 / 575, 157 / 712, 428 / 1 449, 631 /
 * 2 219, 338 / 1 307 KB). Re-measured the same day after the sandbox's signing secrets
 * (d867504) and the engine's SQLite owner work landed: delivery-engine 275 / 933 KB, sandbox
 * 427 / 1 494 KB; their budgets were set again from those by the same rule. A change that needs
 * more raises the number here, in the same pull request, saying what the bytes bought.
 * The receiver's transactional inbox (issue 29: six entries — the core and the pg, Drizzle,
 * Kysely, Knex and mysql2 adapters — their sources and the two SQL files) took it to 286 / 1 057
 * KB; its budget was set again from that by the same rule.
 * Secrets at rest (issue 41: AES-256-GCM sealing of stored Auth Keys and signing secrets, key
 * files, the key check and the upgrade of both stores, re-sealing, the `credentials` hook) took
 * delivery-engine from 316 / 1 069 KB to 368 / 1 252 KB (about 35 KB of source and its TSDoc,
 * shipped as source, ESM, CommonJS, maps and declarations); its budget was set again from that
 * by the same rule.
 */
export const SIZE_BUDGETS: Readonly<Record<string, { readonly packed: number; readonly unpacked: number }>> = {
  '@kyc/client': { packed: 130_000, unpacked: 510_000 },
  '@kyc/contracts': { packed: 140_000, unpacked: 630_000 },
  '@kyc/delivery-engine': { packed: 430_000, unpacked: 1_440_000 },
  '@kyc/sandbox': { packed: 500_000, unpacked: 1_720_000 },
  '@kyc/webhook-receiver': { packed: 330_000, unpacked: 1_220_000 },
};
