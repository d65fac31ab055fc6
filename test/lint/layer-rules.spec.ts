// The layer rules of docs/architecture.md are eslint rules: this spec writes files that break each rule into the
// tree, lints them with the project's own config, and checks that every break is reported.
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '..', '..');
const ESLINT = path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');
const tag = `${process.pid}_${Date.now()}`;

interface Probe {
  file: string;
  source: string;
  /** One expected complaint per import line, in order. */
  expected: RegExp[];
}

const probes: Probe[] = [
  {
    file: `apps/server/src/lint_probe_${tag}.ts`,
    source: [
      "import { PointsModule } from '@vectorstore/points/points.module';",
      "import { CollectionsService } from '../../../libs/collections/src/collections.service';",
      'export const probe = [PointsModule, CollectionsService];',
    ].join('\n'),
    expected: [/through its entry point/, /not a relative path/],
  },
  {
    file: `libs/points/src/lint_probe_${tag}.ts`,
    source: [
      "import { status } from '@grpc/grpc-js';",
      "import { Transport } from '@nestjs/microservices';",
      "import type { Request } from 'express';",
      "import { AppModule } from '../../../apps/server/src/app.module';",
      "import { CollectionsService } from '@vectorstore/collections/collections.service';",
      'export const probe: [unknown, unknown, unknown, unknown, Request?] = [status, Transport, AppModule, CollectionsService];',
    ].join('\n'),
    expected: [
      /gRPC lives in apps\/server/,
      /transports live in apps\/server/,
      /HTTP lives in apps\/server/,
      /never import the app/,
      /through its entry point/,
    ],
  },
  {
    file: `libs/engine/src/lint_probe_${tag}.ts`,
    source: ["import { DomainError } from '@vectorstore/common';", 'export const probe = DomainError;'].join('\n'),
    expected: [/imports no other library/],
  },
  {
    file: `libs/collections/src/lint_probe_${tag}.ts`,
    source: ["import { PointsWriter } from '@vectorstore/points';", 'export const probe = PointsWriter;'].join('\n'),
    expected: [/libs\/collections may import only @vectorstore\/common, @vectorstore\/persistence\./],
  },
  {
    // What the rules allow: the app and libraries import libraries through their entry points.
    file: `libs/points/src/lint_probe_allowed_${tag}.ts`,
    source: [
      "import { DomainError } from '@vectorstore/common';",
      "import { CollectionsService } from '@vectorstore/collections';",
      'export const probe = [DomainError, CollectionsService];',
    ].join('\n'),
    expected: [],
  },
];

describe('layer rules (eslint)', () => {
  let results: Array<{ filePath: string; messages: Array<{ ruleId: string | null; message: string; line: number }> }>;

  beforeAll(async () => {
    for (const probe of probes) writeFileSync(path.join(ROOT, probe.file), probe.source + '\n');
    try {
      const run = await promisify(execFile)(
        process.execPath,
        [ESLINT, '--format', 'json', '--no-warn-ignored', ...probes.map((p) => p.file)],
        { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
      results = JSON.parse(run.stdout);
    } finally {
      for (const probe of probes) rmSync(path.join(ROOT, probe.file), { force: true });
    }
  }, 120_000);

  it.each(
    probes
      .filter((probe) => probe.expected.length > 0)
      .map((probe) => [probe.file.replace(`_${tag}`, ''), probe] as const),
  )('reports every forbidden import in %s', (_name, probe) => {
    const result = results.find((r) => r.filePath === path.join(ROOT, probe.file));
    const restricted = (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports');
    expect(restricted.length).toBeGreaterThanOrEqual(probe.expected.length);
    probe.expected.forEach((pattern, index) => {
      const onLine = restricted.filter((m) => m.line === index + 1).map((m) => m.message);
      expect(onLine.some((message) => pattern.test(message))).toBe(true);
    });
  });

  it('accepts imports through the entry points', () => {
    const allowed = probes[probes.length - 1];
    const result = results.find((r) => r.filePath === path.join(ROOT, allowed.file));
    expect(result).toBeDefined();
    expect(result!.messages.filter((m) => m.ruleId === 'no-restricted-imports')).toEqual([]);
  });
});
