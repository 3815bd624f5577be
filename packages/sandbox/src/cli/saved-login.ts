import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { CLI_TOKEN_PATTERN } from '../store/cli-tokens.js';
import { CliError } from './cli-error.js';

/** What `kyc-sandbox login` keeps: the service, who, and a token (never the password). */
const savedLoginSchema = z.strictObject({
  service: z.url(),
  username: z.string().min(1).max(64),
  company: z.string().max(200),
  token: z.string().regex(CLI_TOKEN_PATTERN),
});
export type SavedLogin = z.infer<typeof savedLoginSchema>;

/** `$KYC_SANDBOX_CONFIG`, else `$XDG_CONFIG_HOME/kyc-sandbox/login.json` (`~/.config` by default). */
export function savedLoginPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.KYC_SANDBOX_CONFIG || join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'kyc-sandbox', 'login.json');
}

/** The saved login, if there is one; a file that does not parse is an error that says where it is. */
export function readSavedLogin(env: NodeJS.ProcessEnv = process.env): SavedLogin | undefined {
  const path = savedLoginPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return savedLoginSchema.parse(JSON.parse(text));
  } catch {
    throw new CliError(`${path} is not a kyc-sandbox login; delete it and run kyc-sandbox login again`);
  }
}

/** Saves a login readable by this user only (0600, in a 0700 folder). */
export function writeSavedLogin(login: SavedLogin, env: NodeJS.ProcessEnv = process.env): string {
  const path = savedLoginPath(env);
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
    // An existing file keeps its old mode on write: set it again.
    chmodSync(path, 0o600);
  } catch (error) {
    throw new CliError(
      `cannot save the login to ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}); set KYC_SANDBOX_CONFIG to a writable file`,
    );
  }
  return path;
}

export function removeSavedLogin(env: NodeJS.ProcessEnv = process.env): void {
  rmSync(savedLoginPath(env), { force: true });
}
