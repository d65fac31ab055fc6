#!/usr/bin/env node
import 'reflect-metadata';
import { isDomainError } from '@vectorstore/common';
import { AppConfig, ConfigError, loadConfig } from '@vectorstore/config';
import { localUserAdmin, remoteUserAdmin } from './user-admin.clients';
import { runUserCommand, UsageError } from './user-cli.commands';

/**
 * `npm run user -- <command>`: user management on the data folder (standalone), on the cluster's users (run with a
 * peer's environment), or through a server's users API (`--url`).
 */
async function main(): Promise<number> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  try {
    const output = await runUserCommand(process.argv.slice(2), async (remote) => {
      if (!remote) return localUserAdmin(config);
      const credential = remote.apiKey ?? config.auth.apiKey;
      if (!credential)
        throw new UsageError('--url needs a credential of an admin: set VECTORSTORE_API_KEY or pass --api-key');
      return remoteUserAdmin(remote.url, credential);
    });
    process.stdout.write(`${output}\n`);
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
