#!/usr/bin/env node
import { CliError } from './cli/cli-error.js';
import { checkEndpointCommand, DEFAULT_DATA_DIR, startCommand, userCommand } from './cli/commands.js';
import { listenCommand } from './cli/listen-command.js';
import { loginCommand, logoutCommand } from './cli/login-command.js';
import { secretsKeyCommand } from './cli/secrets-key-command.js';
import { signingSecretCommand } from './cli/signing-secret-command.js';
import { triggerCommand } from './cli/trigger-command.js';
import { USAGE } from './cli/usage.js';
import { SandboxError } from './sandbox-error.js';

const io = { out: (text: string) => process.stdout.write(text), err: (text: string) => process.stderr.write(text) };

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  switch (command) {
    case 'start':
      await startCommand(args, io);
      return 0;
    case 'user':
      await userCommand(args, io);
      return 0;
    case 'check-endpoint':
      return checkEndpointCommand(args, io);
    case 'login':
      return loginCommand(args, io);
    case 'logout':
      return logoutCommand(args, io);
    case 'listen':
      return listenCommand(args, io);
    case 'trigger':
      return triggerCommand(args, io);
    case 'signing-secret':
      return signingSecretCommand(args, io);
    case 'secrets-key':
      return secretsKeyCommand(args, io, DEFAULT_DATA_DIR);
    case 'help':
    case '--help':
    case '-h':
      io.out(USAGE);
      return 0;
    default:
      io.err(command === undefined ? USAGE : `unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Known failures are one clear line; only an unexpected bug shows more (with KYC_SANDBOX_DEBUG=1).
    if (error instanceof CliError || error instanceof SandboxError) {
      io.err(`kyc-sandbox: ${error.message}\n`);
      process.exitCode = error instanceof CliError ? error.exitCode : 1;
    } else {
      io.err(`kyc-sandbox: unexpected error: ${(error as Error).message}\n`);
      if (process.env.KYC_SANDBOX_DEBUG === '1') io.err(`${(error as Error).stack}\n`);
      process.exitCode = 1;
    }
  },
);
