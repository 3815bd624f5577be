import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CliError } from './cli-error.js';

/** Parses a command's flags strictly; a mistake is a usage error (exit 2) that points at help. */
export function parse<const T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true as const, allowPositionals: true as const });
  } catch (error) {
    throw new CliError(`${(error as Error).message}. Run "kyc-sandbox help".`, 2);
  }
}

/** A number flag within bounds, or its fallback when absent. */
export function integerFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || parsed < min || parsed > max) {
    throw new CliError(`--${name} must be a number from ${min} to ${max} (got "${value}")`, 2);
  }
  return parsed;
}

/** The PEM file a flag names, read now so a wrong path is a usage error. */
export function readPem(flag: string, path: string | undefined): string[] {
  if (path === undefined) return [];
  try {
    return [readFileSync(path, 'utf8')];
  } catch (error) {
    throw new CliError(`--${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 2);
  }
}
