// Summarises a V8 .cpuprofile (node --cpu-prof) of the server: self time by area, the top functions, and self time
// by stage of a request (body read and parse, routing, Nest's guards and interceptors, auth, search, serialisation,
// response write, logging, metrics, GC, the transports' own code). A window (µs of the monotonic clock the
// profile's timestamps use, as measure.ts records each run's) limits it to the samples of one run; with a count of
// queries, the stage table is in µs per query.
// Usage: tsx bench/server/profile-summary.ts <file.cpuprofile> [top=25] [--from=<µs> --to=<µs>] [--queries=<n>]
// (run.ts with BENCH_PROFILE=1 profiles its runs and prints the stage table of each itself.)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A part of the profile: samples taken from `fromUs` to `toUs` (CLOCK_MONOTONIC µs), `queries` answered meanwhile. */
export interface ProfileWindow {
  label: string;
  fromUs: number;
  toUs: number;
  queries: number;
}

export function loadProfile(file: string): Profile {
  return JSON.parse(readFileSync(file, 'utf8')) as Profile;
}

/**
 * The profiles `node --cpu-prof --cpu-prof-dir=<dir>` wrote for one process, main thread first. Node names them
 * CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; the main thread is thread 0, workers count up from 1.
 */
export function profilesOf(dir: string, pid: number): { thread: number; file: string }[] {
  return readdirSync(dir)
    .map((name) => ({ name, match: /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(name) }))
    .filter(({ match }) => match !== null && Number(match[1]) === pid)
    .map(({ name, match }) => ({ thread: Number(match![2]), file: join(dir, name) }))
    .sort((a, b) => a.thread - b.thread);
}

/** Self time per profile node (µs) of the samples within `window` (all of them without one). */
export function selfTimes(profile: Profile, window?: { fromUs: number; toUs: number }): Map<number, number> {
  const self = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    self.set(id, (self.get(id) ?? 0) + delta);
  });
  return self;
}

/** Which part of the stack a frame belongs to, by its script. */
function areaOf(url: string, name: string): string {
  if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') return name;
  if (url.includes('@grpc/')) return 'grpc-js';
  if (url.includes('protobufjs') || url.includes('@grpc/proto-loader')) return 'protobuf';
  if (url.includes('@nestjs/')) return 'nestjs';
  if (url.includes('/rxjs/')) return 'rxjs';
  if (url.includes('node_modules/')) return url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1');
  if (url.startsWith('node:')) return 'node';
  if (url.includes('/libs/engine/')) return 'engine';
  if (url.includes('/libs/')) return url.replace(/.*\/libs\/([^/]+)\/.*/, 'libs/$1');
  if (url.includes('/apps/server/src/')) return url.replace(/.*\/apps\/server\/src\/([^/]+)\/.*/, 'app/$1');
  if (url.startsWith('wasm://')) return 'engine (wasm)';
  return url === '' ? 'native/other' : 'other';
}

// Stages of a request. A sample counts for the stage of the innermost frame on its stack that names one (a
// node-internal or native frame names none, so node's header writing under express's res.send is the response's,
// a Buffer.concat under the body middleware the body's; only the native socket write calls have a stage of their
// own); a stack without such a frame counts for its leaf's generic stage (node's HTTP and sockets, the event loop,
// V8).
export const STAGES = [
  'body read + JSON parse',
  'request decoding (REST/gRPC → domain)',
  'routing (HTTP router)',
  'Nest: guards, pipes, interceptors, handler',
  'auth (credential check)',
  'search (libs, engine)',
  'serialisation (domain → REST/gRPC, JSON text)',
  'response write (res.send, headers, ETag)',
  'socket write calls (writev: kernel, and time descheduled)',
  'logging (pino, pino-http)',
  'metrics',
  'gRPC transport (grpc-js, protobuf)',
  'GC',
  "node's HTTP and sockets",
  'event loop, timers, promises',
  'node (other)',
  'V8 and native (program)',
  'other',
] as const;
export type Stage = (typeof STAGES)[number];

const pkg = (...names: string[]) => new RegExp(`node_modules/(${names.join('|')})/`);
/** Files that hold both directions (reading requests, writing answers): their writers, by function name. */
const TWO_WAY = /\/rest-json\.|\.rest-mapper\.|\/rest-decoders\./;
const WRITER = /stringify|[wW]rite|[eE]ncode|shortest|fits|f32|Text$|ToRest|yieldToLoop|[sS]liced|isPlainRecord/;
/** Rules tried in order on a frame's script (and, in TWO_WAY files, its function name). */
const SPECIFIC: [Stage, (url: string, name: string) => boolean][] = [
  // node's native socket writes: the syscall's kernel work (on loopback, much of the receiver's too) and, in a
  // wall-clock profile, any time the thread lost its core right after waking the reader
  [
    'socket write calls (writev: kernel, and time descheduled)',
    (u, n) => u === '' && /^(writev|writeBuffer|write(Utf8|Latin1|Ascii|Ucs2)String)$/.test(n),
  ],
  [
    'logging (pino, pino-http)',
    (u) =>
      pkg('pino', 'pino-http', 'pino-std-serializers', 'sonic-boom', 'thread-stream', 'nestjs-pino').test(u) ||
      /\/core\/logging\//.test(u),
  ],
  ['metrics', (u) => pkg('prom-client', 'tdigest', 'bintrees').test(u) || /\/core\/metrics\//.test(u)],
  [
    'auth (credential check)',
    (u) =>
      pkg('jsonwebtoken', 'jws', 'jwa', 'passport', 'passport-jwt', '@nestjs/passport', '@nestjs/jwt').test(u) ||
      /\/libs\/auth\/|\/apps\/server\/src\/auth\/|\/credential-failure\./.test(u),
  ],
  [
    'response write (res.send, headers, ETag)',
    (u) =>
      /node_modules\/express\/lib\/response\.js|node_modules\/fastify\/lib\/reply\.js/.test(u) ||
      pkg('etag', 'fresh', 'send', 'content-disposition', 'vary', 'on-headers', 'on-finished').test(u),
  ],
  [
    'serialisation (domain → REST/gRPC, JSON text)',
    (u, n) => /\/chunked-json\.|\/rest-envelope\.|fast-json-stringify/.test(u) || (TWO_WAY.test(u) && WRITER.test(n)),
  ],
  [
    'body read + JSON parse',
    (u) =>
      pkg(
        'lossless-json',
        'raw-body',
        'body-parser',
        'iconv-lite',
        'type-is',
        'media-typer',
        'content-type',
        'bytes',
      ).test(u) || /\/rest-body\.|\/rest-json\.|secure-json-parse|content-type-parser/.test(u),
  ],
  [
    'request decoding (REST/gRPC → domain)',
    (u) =>
      /\.rest-mapper\.|\/rest-decoders\.|\/rest-field-paths\.|\/rest-query\.|\/grpc\/[^/]*\.mapper\.|\/core\/validation\/|\/collection-name/.test(
        u,
      ) || pkg('class-validator', 'class-transformer').test(u),
  ],
  [
    'gRPC transport (grpc-js, protobuf)',
    (u) =>
      pkg('@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs', '@protobufjs/[^/]+', 'long').test(u) ||
      /\/apps\/server\/src\/grpc\//.test(u),
  ],
  [
    'routing (HTTP router)',
    (u) =>
      pkg('express', 'router', 'path-to-regexp', 'finalhandler', 'find-my-way', 'fastify', 'avvio', 'parseurl').test(
        u,
      ) || /\/rest-routes\./.test(u),
  ],
  [
    'Nest: guards, pipes, interceptors, handler',
    (u) => pkg('@nestjs/[^/]+', 'rxjs', 'reflect-metadata', 'tslib').test(u) || /\/apps\/server\/src\//.test(u),
  ],
  ['search (libs, engine)', (u) => /\/libs\//.test(u) || u.startsWith('wasm://')],
];

function genericStage(url: string, name: string): Stage {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(program)' || url === '') return 'V8 and native (program)';
  if (
    /^node:(_http_|net|internal\/(streams|stream_base_commons|http|net|js_stream_socket|dns)|stream|events|buffer|string_decoder|internal\/url)/.test(
      url,
    )
  )
    return "node's HTTP and sockets";
  if (/^node:(internal\/(process\/task_queues|timers|async_hooks|promise_hooks)|timers|async_hooks)/.test(url))
    return 'event loop, timers, promises';
  if (url.startsWith('node:')) return 'node (other)';
  return 'other';
}

/** Self time (µs) by stage, '(idle)' left out, and the busy total. */
export function stageTimes(profile: Profile, self: Map<number, number>): { stages: Map<Stage, number>; busy: number } {
  const parent = new Map<number, ProfileNode>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const specific = (node: ProfileNode): Stage | undefined => {
    const { url, functionName } = node.callFrame;
    if (functionName === '(garbage collector)') return 'GC';
    return SPECIFIC.find(([, test]) => test(url, functionName))?.[0];
  };
  const stages = new Map<Stage, number>();
  let busy = 0;
  for (const [id, us] of self) {
    const leaf = byId.get(id)!;
    if (leaf.callFrame.functionName === '(idle)') continue;
    let stage: Stage | undefined;
    for (let node: ProfileNode | undefined = leaf; node && stage === undefined; node = parent.get(node.id))
      stage = specific(node);
    stage ??= genericStage(leaf.callFrame.url, leaf.callFrame.functionName);
    stages.set(stage, (stages.get(stage) ?? 0) + us);
    busy += us;
  }
  return { stages, busy };
}

/** A markdown table of stages: one column per profile part, in µs per query, stages without time left out. */
export function stageTable(
  columns: { label: string; stages: Map<Stage, number>; busy: number; queries: number }[],
): string {
  const perQuery = (us: number, queries: number) => (us / queries).toFixed(0);
  const lines = [
    `| stage | ${columns.map((c) => `${c.label} µs/query`).join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
  ];
  for (const stage of STAGES) {
    if (!columns.some((c) => (c.stages.get(stage) ?? 0) > 0)) continue;
    lines.push(`| ${stage} | ${columns.map((c) => perQuery(c.stages.get(stage) ?? 0, c.queries)).join(' | ')} |`);
  }
  lines.push(`| **main thread busy** | ${columns.map((c) => `**${perQuery(c.busy, c.queries)}**`).join(' | ')} |`);
  return lines.join('\n');
}

/** The `top` functions by self time (µs) among `self`, '(idle)' left out, as "name script:line". */
export function topFunctions(profile: Profile, self: Map<number, number>, top: number): [string, number][] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const functions = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    const key = `${functionName || '(anonymous)'} ${url.replace(/.*\/(node_modules|dist)\//, '')}:${lineNumber + 1}`;
    functions.set(key, (functions.get(key) ?? 0) + us);
  }
  return [...functions].sort((a, b) => b[1] - a[1]).slice(0, top);
}

function main(): void {
  const args = process.argv.slice(2);
  const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const [file, topArg] = args.filter((a) => !a.startsWith('--'));
  if (!file) throw new Error('usage: profile-summary <file.cpuprofile> [top] [--from=<µs> --to=<µs>] [--queries=<n>]');
  const profile = loadProfile(file);
  const from = option('from');
  const to = option('to');
  const window =
    from !== undefined || to !== undefined ? { fromUs: Number(from ?? 0), toUs: Number(to ?? Infinity) } : undefined;
  const selfUs = selfTimes(profile, window);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));

  const areas = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url } = byId.get(id)!.callFrame;
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    if (area !== '(idle)') busy += us;
  }

  const pct = (us: number) => `${((100 * us) / busy).toFixed(1)}%`;
  console.log(`busy ${(busy / 1e6).toFixed(2)} s (idle excluded)\n\n| area | self | share of busy |\n|---|---:|---:|`);
  for (const [area, us] of [...areas].sort((a, b) => b[1] - a[1])) {
    if (area !== '(idle)') console.log(`| ${area} | ${(us / 1e3).toFixed(0)} ms | ${pct(us)} |`);
  }
  console.log('\n| function | self | share |\n|---|---:|---:|');
  for (const [name, us] of topFunctions(profile, selfUs, Number(topArg ?? 25))) {
    console.log(`| ${name} | ${(us / 1e3).toFixed(0)} ms | ${pct(us)} |`);
  }
  const { stages } = stageTimes(profile, selfUs);
  const queries = Number(option('queries') ?? 0);
  if (queries > 0) {
    console.log(`\n${stageTable([{ label: file.replace(/.*\//, ''), stages, busy, queries }])}`);
  } else {
    console.log('\n| stage | self | share of busy |\n|---|---:|---:|');
    for (const stage of STAGES) {
      const us = stages.get(stage) ?? 0;
      if (us > 0) console.log(`| ${stage} | ${(us / 1e3).toFixed(0)} ms | ${pct(us)} |`);
    }
  }
}

if (require.main === module) main();
