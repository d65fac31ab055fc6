// The layer rules of docs/architecture.md are eslint rules. This spec lints probe sources, one import each, as if
// they sat at paths in the tree (nothing is written), and checks that every forbidden import is reported and every
// allowed one is not. The probes are generated from LIBRARY_DEPENDENCIES, so each library is tried.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

interface Probe {
  filePath: string;
  code: string;
  forbidden: boolean;
}
interface Result {
  filePath: string;
  messages: Array<{ ruleId: string | null; line: number; message: string }>;
}

/** The table from eslint.config.mjs, read in a child process (the config is an ES module). */
function libraryDependencies(): Record<string, string[]> {
  const script =
    "import('./eslint.config.mjs').then((m) => process.stdout.write(JSON.stringify(m.LIBRARY_DEPENDENCIES)))";
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' }));
}

const TRANSPORTS = [
  '@grpc/grpc-js',
  '@grpc/proto-loader',
  '@nestjs/microservices',
  '@nestjs/microservices/constants',
  '@nestjs/platform-express',
  'express',
  'express/lib/router',
  'express-serve-static-core',
  'body-parser',
];

function probesFor(table: Record<string, string[]>): Probe[] {
  const libraries = Object.keys(table);
  const probes: Probe[] = [];
  const add = (filePath: string, statement: string, forbidden: boolean) =>
    probes.push({ filePath, code: `${statement}\nexport const probe = 1;\n`, forbidden });
  const from = (specifier: string) => `import { x } from '${specifier}';`;

  for (const library of libraries) {
    // A nested file: the rules must hold at any depth. Four levels below libs/.
    const file = `libs/${library}/src/deep/nested/probe.ts`;
    const other = libraries.find((name) => name !== library)!;
    for (const target of libraries) {
      if (target === library) add(file, from(`@vectorstore/${target}`), true);
      else add(file, from(`@vectorstore/${target}`), !table[library].includes(target));
    }
    add(file, from(`@vectorstore/${other}/model`), true);
    add(file, from(`@vectorstore/${other}/`), !table[library].includes(other));
    add(file, from(`../../../../${other}/src`), true);
    add(file, from(`../../../../${other}/src/errors/domain-error`), true);
    add(file, from(`libs/${other}/src/errors/domain-error`), true);
    add(file, from(`../../../../../apps/server/src/app.module`), true);
    add(file, from(`apps/server/src/app.module`), true);
    add(file, from(`../../../../../dist/libs/${other}/src`), true);
    for (const transport of TRANSPORTS) add(file, from(transport), true);
    add(file, `import type { Request } from 'express';`, true);
    add(file, `export { x } from '@grpc/grpc-js';`, true);
    add(file, `export const load = () => import('@vectorstore/${other}');`, true);
    add(file, `export type T = import('@grpc/grpc-js').Metadata;`, true);
    add(file, from(`../../../../../test/support/seeded-random`), true);
    add(file, from(`../testing/fixtures`), true);
    // Allowed: the library's own files, a local file that happens to be named like a package, Node and npm packages.
    add(file, from(`../../model/thing`), false);
    add(file, from(`./express`), false);
    add(file, from(`node:fs`), false);
    add(file, from(`@nestjs/common`), false);
    // Specs and test helpers may use test helpers, and nothing else changes for them.
    add(`libs/${library}/src/deep/thing.spec.ts`, from(`../testing/fixtures`), false);
    add(`libs/${library}/src/deep/thing.spec.ts`, from(`../../../../test/support/seeded-random`), false);
    add(`libs/${library}/src/testing/fixtures.ts`, from(`../../../../test/support/seeded-random`), false);
    add(`libs/${library}/src/deep/thing.spec.ts`, from(`../../../${other}/src/index`), true);
    add(`libs/${library}/src/testing/fixtures.ts`, from(`@grpc/grpc-js`), true);
  }

  const app = 'apps/server/src/feature/nested/probe.ts';
  for (const library of libraries) {
    add(app, from(`@vectorstore/${library}`), false);
    add(app, from(`@vectorstore/${library}/model`), true);
    add(app, from(`../../../../../libs/${library}/src`), true);
    add(app, from(`libs/${library}/src`), true);
  }
  add(app, from(`../../../../../test/support/seeded-random`), true);
  add(app, `export const load = () => import('@vectorstore/points');`, true);
  add(app, from(`@grpc/grpc-js`), false);
  add(app, from(`../sibling/thing`), false);

  // The dashboard is a browser client: its own files and preact only.
  const dashboard = 'apps/dashboard/src/pages/probe.ts';
  add(dashboard, from(`@vectorstore/${libraries[0]}`), true);
  add(dashboard, from(`../../../server/src/app.module`), true);
  add(dashboard, from(`../../../../libs/${libraries[0]}/src`), true);
  add(dashboard, from(`node:fs`), true);
  add(dashboard, from(`@nestjs/common`), true);
  add(dashboard, `export const load = () => import('preact');`, true);
  add(dashboard, from(`preact/hooks`), false);
  add(dashboard, from(`preact`), false);
  add(dashboard, from(`../api/http`), false);
  add(dashboard, from(`./collection`), false);
  return probes;
}

describe('layer rules (eslint)', () => {
  const probes = probesFor(libraryDependencies());
  let results: Map<string, Result[]>;

  beforeAll(() => {
    const output = execFileSync(process.execPath, [path.join(__dirname, 'lint-probes.mjs')], {
      cwd: ROOT,
      input: JSON.stringify(probes.map(({ filePath, code }) => ({ filePath, code }))),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const parsed = JSON.parse(output) as Result[];
    results = new Map();
    parsed.forEach((result, index) => {
      const key = `${probes[index].filePath}\n${probes[index].code}`;
      results.set(key, [...(results.get(key) ?? []), result]);
    });
  }, 120_000);

  it('tries every library', () => {
    const libraries = Object.keys(libraryDependencies());
    for (const library of libraries) expect(probes.some((p) => p.filePath.startsWith(`libs/${library}/`))).toBe(true);
    expect(probes.length).toBeGreaterThan(libraries.length * 30);
  });

  it('reports every forbidden import and no allowed one', () => {
    const wrong: string[] = [];
    for (const probe of probes) {
      const [result] = results.get(`${probe.filePath}\n${probe.code}`)!;
      const layerMessages = result.messages.filter(
        (m) => m.line === 1 && (m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax'),
      );
      const fatal = result.messages.filter((m) => m.ruleId === null);
      if (fatal.length > 0)
        wrong.push(`${probe.filePath}: ${probe.code.split('\n')[0]} did not parse: ${fatal[0].message}`);
      else if (probe.forbidden && layerMessages.length === 0)
        wrong.push(`${probe.filePath}: ${probe.code.split('\n')[0]} passed but is forbidden`);
      else if (!probe.forbidden && layerMessages.length > 0)
        wrong.push(`${probe.filePath}: ${probe.code.split('\n')[0]} refused: ${layerMessages[0].message}`);
    }
    expect(wrong).toEqual([]);
  });
});
