#!/usr/bin/env node
import { ConfigError, loadConfig } from '@vectorstore/config';
import { SingleBar } from 'cli-progress';
import { formatBytes, ProgressFactory, runSnapshotCommand, SnapshotUsageError } from './snapshot-cli.commands';
import { SnapshotClient, SnapshotClientError } from './snapshot-client';

/** A bar on stderr: redrawn in place on a terminal, a line every few seconds otherwise (logs, CI). */
const progressBar: ProgressFactory = (label) => {
  let bar: SingleBar | undefined;
  const started = Date.now();
  return {
    update(done, total) {
      if (bar === undefined) {
        bar = new SingleBar({
          stream: process.stderr,
          format: `${label} [{bar}] {percentage}% {doneText} of {totalText} | {speed}`,
          noTTYOutput: true,
          notTTYSchedule: 3000,
          hideCursor: true,
          etaBuffer: 50,
        });
        bar.start(total ?? 0, 0, { doneText: '0 B', totalText: total === undefined ? '?' : formatBytes(total) });
      }
      const elapsed = (Date.now() - started) / 1000;
      bar.update(done, {
        doneText: formatBytes(done),
        speed: elapsed > 0 ? `${formatBytes(done / elapsed)}/s` : '',
      });
    },
    finish() {
      bar?.stop();
    },
  };
};

/** `npm run snapshot -- <command>`: snapshots through a running server's REST API. */
async function main(argv: string[]): Promise<number> {
  let defaults: { url: string; apiKey?: string };
  try {
    const config = loadConfig();
    defaults = { url: `http://127.0.0.1:${config.http.port}`, apiKey: config.auth.apiKey };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  try {
    const url = new URL(optionValue(argv, '--url') ?? defaults.url);
    const client = new SnapshotClient(url, optionValue(argv, '--api-key') ?? defaults.apiKey);
    process.stdout.write(`${await runSnapshotCommand(argv, { client, progress: progressBar, cwd: process.cwd() })}\n`);
    return 0;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (error instanceof SnapshotUsageError || code?.startsWith('ERR_PARSE_ARGS') || code === 'ERR_INVALID_URL') {
      process.stderr.write(`${(error as Error).message}\n`);
      return 2;
    }
    if (error instanceof SnapshotClientError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/** `--name value` or `--name=value`, read before parsing so that the client exists for every command. */
function optionValue(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === name) return argv[i + 1];
    if (argv[i].startsWith(`${name}=`)) return argv[i].slice(name.length + 1);
  }
  return undefined;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`snapshot command failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
