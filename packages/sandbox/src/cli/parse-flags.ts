import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CliError } from './cli-error.js';

/**
 * `--name value` as `--name=value` when the value starts with `-` and is not itself one of the
 * command's flags. Node's parseArgs calls such a value ambiguous and refuses it, yet an Auth Key
 * is base64url and starts with `-` about once in 64 (1 028 of 64 000 generated keys did).
 */
function joinDashValues(args: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const takesValue = (arg: string) => arg.startsWith('--') && options[arg.slice(2)]?.type === 'string';
  const shorts = new Set(Object.values(options).map((option) => option.short));
  const isFlag = (arg: string) => {
    const name = arg.startsWith('--') ? arg.slice(2).split('=')[0] : undefined;
    return arg === '--' || arg === '-h' || shorts.has(arg.slice(1)) || (name !== undefined && name in options);
  };
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    if (takesValue(arg) && next?.startsWith('-') && !isFlag(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

/** Parses a command's flags strictly; a mistake is a usage error (exit 2) that points at help. */
export function parse<const T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({
      args: joinDashValues(args, options),
      options,
      strict: true as const,
      allowPositionals: true as const,
    });
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
