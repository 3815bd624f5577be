import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  DeliveryEngineError,
  formatSealingKeys,
  generateSealingKey,
  loadSealingKeys,
  parseSealingKeys,
  type SealingKey,
  saveSealingKeys,
} from '@kyc/delivery-engine';
import { createSandbox } from '../create-sandbox.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { parse } from './parse-flags.js';

const USAGE = 'usage: kyc-sandbox secrets-key rotate [--data-dir <folder>]';

/** The key ring in use: `KYC_SECRETS_KEY`, else the key file beside the data folder. */
function currentKeys(dataDir: string, keyFile: string): { keys: SealingKey[]; fromEnvironment: boolean } {
  const text = process.env.KYC_SECRETS_KEY;
  if (text !== undefined && text !== '')
    return { keys: parseSealingKeys(text, 'KYC_SECRETS_KEY'), fromEnvironment: true };
  if (!existsSync(keyFile)) {
    throw new CliError(
      `no secrets key: ${keyFile} does not exist and KYC_SECRETS_KEY is not set (is ${dataDir} the data folder?)`,
      1,
    );
  }
  return { keys: loadSealingKeys(keyFile), fromEnvironment: false };
}

/**
 * `kyc-sandbox secrets-key rotate`: a new key seals every Auth Key and signing secret the sandbox
 * keeps, in `sandbox.db` and the engine's `deliveries.db`, and the old key is retired. Run it
 * while the sandbox is stopped. With the key file the steps are crash-safe: the file first
 * holds the new key and the old one, then everything is sealed again, then the file holds the
 * new key alone. With `KYC_SECRETS_KEY` it prints the new value to set instead (the only output
 * that holds a key: the operator's secrets key, never a customer's secret).
 */
export async function secretsKeyCommand(args: string[], io: CliIo, defaultDataDir: string): Promise<number> {
  const { values, positionals } = parse(args, { 'data-dir': { type: 'string' } });
  if (positionals.length !== 1 || positionals[0] !== 'rotate') throw new CliError(USAGE, 2);
  const dataDir = values['data-dir'] ?? defaultDataDir;
  const keyFile = `${resolve(dataDir)}.key`;
  const { keys, fromEnvironment } = currentKeys(dataDir, keyFile);
  const next = generateSealingKey();
  const ring = [next, ...keys.filter((key) => key.id !== next.id)];
  if (!fromEnvironment) saveSealingKeys(keyFile, ring);
  const sandbox = await createSandbox({
    dataDir,
    ...(fromEnvironment ? { secretsKey: formatSealingKeys(ring) } : { secretsKeyFile: keyFile }),
  });
  let counts: { sandbox: number; deliveries: number };
  try {
    counts = await sandbox.resealSecrets();
  } catch (error) {
    if (error instanceof DeliveryEngineError && error.code === 'store_locked') {
      // Refused before anything was sealed with the new key: the key file goes back as it was.
      if (!fromEnvironment) saveSealingKeys(keyFile, keys);
      throw new CliError(`the sandbox is running on ${dataDir}: stop it, then rotate (${error.message})`, 1);
    }
    throw error;
  } finally {
    await sandbox.close();
  }
  io.out(
    `secrets key rotated to "${next.id}": ${counts.sandbox} values in sandbox.db and ${counts.deliveries} deliveries sealed again; ${keys.map((key) => `"${key.id}"`).join(', ')} retired\n`,
  );
  if (fromEnvironment) {
    io.out(`set KYC_SECRETS_KEY=${formatSealingKeys([next])} (the old key opens nothing any more)\n`);
  } else {
    saveSealingKeys(keyFile, [next]);
    io.out(`${keyFile} now holds the new key only\n`);
  }
  return 0;
}
