#!/usr/bin/env node
import 'reflect-metadata';
import { isDomainError } from '@vectorstore/common';
import { ConfigError, loadConfig } from '@vectorstore/config';
import { runUserCommand, UsageError } from './user-cli.commands';

/** `npm run user -- <command>`: user management that works directly on the data folder. */
async function main(): Promise<number> {
  let dataDir: string;
  try {
    dataDir = loadConfig().dataDir;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  try {
    process.stdout.write(`${await runUserCommand(process.argv.slice(2), dataDir)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(error as Error).message}\n`);
      return 2;
    }
    if (isDomainError(error)) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`user command failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
