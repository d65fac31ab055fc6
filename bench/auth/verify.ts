// npm run bench:auth — what verifying a credential costs per request, standalone vs cluster (issue 26). In cluster
// mode the users live in etcd (libs/cluster/src/auth/etcd-user-store.ts), read once and kept current by a watch, so
// a request must never wait for etcd. The same cheap authenticated requests against a standalone server and etcd +
// 1 cluster peer (BENCH_SETUPS=standalone,1,3 adds etcd + 3 peers): REST GET /api/auth/me with an access token (JWT
// from POST /api/auth/login), REST GET /collections with the JWT and with the API key (the baseline: no user
// lookup), gRPC qdrant.Collections/List with the JWT and with the API key; 1 and 8 clients over keep-alive
// connections. Per run: QPS, p50/p99, the servers' CPU per request (/proc/<pid>/stat) and, in a cluster, the etcd
// KV calls (Range, Txn) counted by etcd itself (/metrics) during the run, less the background: the same etcd's
// calls while the standalone server ran the same case just before (the cluster idle meanwhile), scaled to the run's
// length. Runs are interleaved (each case on every setup in turn), so slow drift of the machine hits all setups
// alike.
// Env: BENCH_REQUESTS (6000 per run), BENCH_CLIENTS (1,8), BENCH_SETUPS (standalone,1), BENCH_WARMUP (200 per
// client), BENCH_IDLE_MAX_S (20: without a standalone setup first, the background is an idle wait after each cluster
// run, as long as the run but at most this).
import { availableParallelism, cpus, loadavg } from 'node:os';
import * as grpc from '@grpc/grpc-js';
import { login } from '../../test/e2e/support/auth-helpers';
import { Setup, startCluster, startStandalone, stopAll } from '../cluster/setups';
import { table } from '../engine/report';
import { processCpuMs, RawClient } from '../server/clients';
import { measure, Run } from '../server/measure';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const REQUESTS = env('BENCH_REQUESTS', 6_000);
const WARMUP = env('BENCH_WARMUP', 200);
const IDLE_MAX_S = env('BENCH_IDLE_MAX_S', 20);
const CLIENT_COUNTS = (process.env.BENCH_CLIENTS ?? '1,8').split(',').map(Number);
const SETUPS = (process.env.BENCH_SETUPS ?? 'standalone,1').split(',').map((s) => s.trim());

type Credential = 'JWT' | 'API key';

interface Case {
  request: string;
  credential: Credential;
  /** An HTTP GET of this path, or (undefined) gRPC qdrant.Collections/List. */
  path?: string;
}

const CASES: Case[] = [
  { request: 'REST GET /api/auth/me', credential: 'JWT', path: '/api/auth/me' },
  { request: 'REST GET /collections', credential: 'JWT', path: '/collections' },
  { request: 'REST GET /collections', credential: 'API key', path: '/collections' },
  { request: 'gRPC Collections/List', credential: 'JWT' },
  { request: 'gRPC Collections/List', credential: 'API key' },
];

interface Target {
  setup: Setup;
  /** An access token from POST /api/auth/login on the first peer; every peer accepts it. */
  token: string;
  /** etcd's client URL; undefined for the standalone server. */
  etcd?: string;
  /** etcd calls by method over every measured run, and over the idle samples after them. */
  etcdTotals: { run: Calls; idle: Calls; runSeconds: number; idleSeconds: number };
}

/** etcd calls by method: unary KV calls handled, and messages received on the lease and watch streams. */
type Calls = Map<string, number>;

/** The methods counted, as `grpc_server_*{grpc_method}`; the first two are what the table's column adds up. */
const COUNTED = ['Range', 'Txn', 'Put', 'DeleteRange', 'LeaseKeepAlive', 'Watch'] as const;
const READS = ['Range', 'Txn'];

interface Result extends Run {
  case: Case;
  setup: string;
  clients: number;
  /** etcd Range + Txn calls during the run less the idle sample after it; undefined without etcd. */
  etcdReads?: number;
  etcdRawReads?: number;
  etcdIdleReads?: number;
}

/**
 * etcd 3.4's own counters: `grpc_server_handled_total` (unary calls, by code) for the KV methods and
 * `grpc_server_msg_received_total` for the streams (a keep-alive or a watch request is a message, not a call).
 */
async function etcdCalls(endpoint: string): Promise<Calls> {
  const text = await (await fetch(`${endpoint}/metrics`)).text();
  const calls: Calls = new Map(COUNTED.map((method) => [method, 0]));
  for (const line of text.split('\n')) {
    const match = /^grpc_server_(handled|msg_received)_total\{([^}]*)\} (\S+)$/.exec(line);
    if (!match) continue;
    const method = /grpc_method="([^"]+)"/.exec(match[2])?.[1] ?? '';
    const stream = method === 'LeaseKeepAlive' || method === 'Watch';
    if (!calls.has(method) || stream !== (match[1] === 'msg_received')) continue;
    calls.set(method, (calls.get(method) ?? 0) + Number(match[3]));
  }
  return calls;
}

const minus = (a: Calls, b: Calls): Calls => new Map([...a].map(([method, n]) => [method, n - (b.get(method) ?? 0)]));
const add = (into: Calls, more: Calls) => more.forEach((n, method) => into.set(method, (into.get(method) ?? 0) + n));
const reads = (calls: Calls) => READS.reduce((sum, method) => sum + (calls.get(method) ?? 0), 0);

const serverCpuMs = (setup: Setup) => setup.peers.reduce((sum, peer) => sum + processCpuMs(peer.pid), 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request of a case: request r of worker w goes to peer r mod P. Throws on anything but success. */
type Send = (worker: number, request: number) => Promise<void>;

/** The case's requests over fresh connections: `concurrency` HTTP connections or gRPC channels per peer. */
function sender(target: Target, testCase: Case, concurrency: number): { send: Send; close(): void } {
  const { peers } = target.setup;
  const secret = testCase.credential === 'JWT' ? target.token : peers[0].apiKey;
  if (testCase.path !== undefined) {
    const headers: Record<string, string> =
      testCase.credential === 'JWT' ? { authorization: `Bearer ${secret}` } : { 'api-key': secret };
    // fetch keeps connections alive (undici's global pool: up to one per request in flight, so `concurrency`).
    const urls = peers.map((peer) => `${peer.httpUrl}${testCase.path}`);
    return {
      send: async (_, r) => {
        const response = await fetch(urls[r % urls.length], { headers });
        const body = await response.text();
        if (response.status !== 200) throw new Error(`${testCase.request}: ${response.status} ${body.slice(0, 200)}`);
      },
      close: () => undefined,
    };
  }
  const metadata = new grpc.Metadata();
  if (testCase.credential === 'JWT') metadata.set('authorization', `Bearer ${secret}`);
  else metadata.set('api-key', secret);
  const clients = Array.from({ length: concurrency }, () =>
    peers.map((peer) => new RawClient(peer.grpcAddress, metadata, 'qdrant.Collections')),
  );
  return {
    send: async (w, r) => {
      await clients[w][r % peers.length].unary('List', {});
    },
    close: () => clients.flat().forEach((client) => client.close()),
  };
}

const NO_TRUTH = new Uint32Array(0);

/** What a case's run on one setup measured, and the etcd calls every cluster's etcd handled meanwhile. */
interface Measured {
  result: Result;
  seconds: number;
  /** Keyed by target: the calls its etcd handled during this run (for the other targets: their background). */
  etcd: Map<Target, Calls>;
}

async function runCase(targets: Target[], target: Target, testCase: Case, concurrency: number): Promise<Measured> {
  const { setup } = target;
  const label = `${setup.name}: ${testCase.request.replace(/^(REST|gRPC) (GET )?/, '')} ${testCase.credential} ×${concurrency}`;
  const { send, close } = sender(target, testCase, concurrency);
  const clustered = targets.filter((t) => t.etcd !== undefined);
  const snapshot = async () =>
    new Map(await Promise.all(clustered.map(async (t) => [t, await etcdCalls(t.etcd!)] as const)));
  try {
    // Warm the connections and the JIT before the counters are read; measure() then runs without a warm-up.
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        for (let i = 0; i < WARMUP; i++) await send(w, w * WARMUP + i);
      }),
    );
    const before = await snapshot();
    const t0 = performance.now();
    const run = await measure(
      label.slice(0, 28),
      concurrency,
      async (w, r) => {
        await send(w, r);
        return [];
      },
      NO_TRUTH,
      () => serverCpuMs(setup),
      { queries: REQUESTS, k: 0, warmup: 0 },
    );
    const seconds = (performance.now() - t0) / 1000;
    const after = await snapshot();
    const etcd = new Map(clustered.map((t) => [t, minus(after.get(t)!, before.get(t)!)]));
    return { result: { ...run, case: testCase, setup: setup.name, clients: concurrency }, seconds, etcd };
  } finally {
    close();
  }
}

/**
 * A cluster run's etcd reads less the background: the same etcd's calls while it served no requests, scaled to the
 * run's length. That sample is the standalone server's run of the same case, just before (the cluster sat idle
 * meanwhile); without a standalone setup, an idle wait as long as the run (at most BENCH_IDLE_MAX_S) right after it.
 */
async function subtractBackground(target: Target, own: Measured, standalone: Measured | undefined): Promise<void> {
  const during = own.etcd.get(target)!;
  let idle: Calls;
  let idleSeconds: number;
  if (standalone) {
    idle = standalone.etcd.get(target)!;
    idleSeconds = standalone.seconds;
  } else {
    idleSeconds = Math.min(own.seconds, IDLE_MAX_S);
    process.stderr.write(`${target.setup.name}: idle sample of ${idleSeconds.toFixed(1)} s\n`);
    const start = await etcdCalls(target.etcd!);
    const t0 = performance.now();
    await sleep(idleSeconds * 1000);
    idle = minus(await etcdCalls(target.etcd!), start);
    idleSeconds = (performance.now() - t0) / 1000;
  }
  const totals = target.etcdTotals;
  add(totals.run, during);
  add(totals.idle, idle);
  totals.runSeconds += own.seconds;
  totals.idleSeconds += idleSeconds;
  const result = own.result;
  result.etcdRawReads = reads(during);
  result.etcdIdleReads = reads(idle) * (own.seconds / idleSeconds);
  result.etcdReads = result.etcdRawReads - result.etcdIdleReads;
}

async function startTarget(which: string): Promise<Target> {
  process.stderr.write(`starting ${which === 'standalone' ? 'a standalone server' : `etcd + ${which} peer(s)`}\n`);
  let setup: Setup;
  if (which === 'standalone') setup = await startStandalone();
  else {
    const peers = Number(which);
    if (!Number.isInteger(peers) || peers < 1) throw new Error(`BENCH_SETUPS: unknown setup ${which}`);
    setup = await startCluster(peers);
  }
  // The first peer made the cluster's first admin with its password (the others' passwords are not the admin's).
  const first = setup.peers[0];
  const session = await login(first.httpUrl, first.adminEmail, first.adminPassword);
  const etcd = first.env.VECTORSTORE_ETCD_ENDPOINTS;
  return {
    setup,
    token: session.tokens.access_token,
    etcd,
    etcdTotals: { run: new Map(), idle: new Map(), runSeconds: 0, idleSeconds: 0 },
  };
}

/** `a ÷ b` to two decimals, or a dash when there is no b. */
const ratio = (a: number, b: number | undefined) => (b === undefined ? '—' : `${(a / b).toFixed(2)}×`);

async function main(): Promise<void> {
  const began = performance.now();
  const loadAtStart = loadavg()[0];
  const targets: Target[] = [];
  for (const which of SETUPS) targets.push(await startTarget(which));
  // A peer that has just started still settles (leader election, first catalog reads): let etcd go quiet first.
  await sleep(2000);

  const results: Result[] = [];
  for (const testCase of CASES) {
    for (const clients of CLIENT_COUNTS) {
      let standalone: Measured | undefined;
      for (const target of targets) {
        const measured = await runCase(targets, target, testCase, clients);
        if (target.etcd === undefined) standalone ??= measured;
        else await subtractBackground(target, measured, standalone);
        results.push(measured.result);
      }
    }
  }
  const problems: string[] = [];
  for (const { setup } of targets) {
    for (const [i, peer] of setup.peers.entries()) {
      const lines = peer
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '');
      if (lines.length > 0)
        problems.push(`${setup.name}, server ${i} logged ${lines.length} line(s), first: ${lines[0].slice(0, 300)}`);
    }
  }
  for (const target of targets) await target.setup.stop();

  const standalone = (r: Result) =>
    results.find(
      (s) =>
        s.setup === 'standalone' &&
        s.clients === r.clients &&
        s.case.request === r.case.request &&
        s.case.credential === r.case.credential,
    );
  const rows = results.map((r) => {
    const base = standalone(r);
    return [
      r.setup,
      r.case.request,
      r.case.credential,
      r.clients,
      Math.round(r.qps),
      r.p50.toFixed(3),
      r.p99.toFixed(3),
      Math.round(r.cpuPerQuery * 1000),
      r.etcdReads === undefined
        ? '—'
        : `${r.etcdReads.toFixed(1)} (${r.etcdRawReads} − ${(r.etcdIdleReads ?? 0).toFixed(1)})`,
      r.setup === 'standalone' ? '—' : ratio(r.qps, base?.qps),
      r.setup === 'standalone' ? '—' : ratio(r.cpuPerQuery, base?.cpuPerQuery),
    ];
  });

  console.log(
    `\nvectorstore credential verification per request — ${REQUESTS} requests per run after ${WARMUP} per client ` +
      `unmeasured; ${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}; servers, etcd ` +
      'and this client on one machine\n',
  );
  console.log(
    'Request r to peer r mod P; REST over keep-alive fetch (one connection per client), gRPC raw @grpc/grpc-js (one ' +
      'channel per client). CPU/request: all server processes (utime + stime from /proc/<pid>/stat), not etcd or the ' +
      'client. etcd reads: Range + Txn calls etcd handled during the run (its /metrics), less the background: ' +
      "the same etcd while the standalone server ran that case (the cluster idle), scaled to the run's length " +
      '(run − background). Ratios: the cluster row ÷ the standalone row of the same case.\n',
  );
  console.log(
    table(
      [
        'setup',
        'request',
        'credential',
        'clients',
        'QPS',
        'p50 ms',
        'p99 ms',
        'server CPU/req µs',
        'etcd reads during run (run − background)',
        'QPS ÷ standalone',
        'CPU/req ÷ standalone',
      ],
      rows,
    ),
  );
  const clustered = targets.filter((t) => t.etcd);
  if (clustered.length > 0) {
    console.log(
      '\netcd calls by method: all measured runs together, and the background samples (KV calls handled; lease ' +
        'keep-alive and watch requests received on their streams):\n',
    );
    console.log(
      table(
        ['setup', 'window', 'seconds', ...COUNTED],
        clustered.flatMap((t) =>
          (['run', 'idle'] as const).map((window) => [
            t.setup.name,
            window === 'run' ? 'runs' : 'background',
            t.etcdTotals[window === 'run' ? 'runSeconds' : 'idleSeconds'].toFixed(1),
            ...COUNTED.map((m) => t.etcdTotals[window].get(m) ?? 0),
          ]),
        ),
      ),
    );
    console.log('');
    for (const t of clustered) {
      const runs = results.filter((r) => r.setup === t.setup.name);
      const extra = runs.reduce((sum, r) => sum + (r.etcdReads ?? 0), 0);
      const requests = runs.length * REQUESTS;
      console.log(
        `${t.setup.name}: ${extra.toFixed(1)} etcd Range + Txn beyond the background over ${requests} authenticated ` +
          `requests = ${(extra / requests).toFixed(5)} per request`,
      );
    }
  }
  if (problems.length > 0) console.log(`\nProblems:\n${problems.map((p) => `- ${p}`).join('\n')}`);
  console.log(
    `\nbench:auth took ${((performance.now() - began) / 1000).toFixed(0)} s; 1-minute load average ` +
      `${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end (${availableParallelism()} cores)`,
  );
}

/**
 * One cleanup for a signal and for the failure the signal causes in main() (its connections refused): both wait for
 * the same stopAll, so neither exits while the other still stops a server or removes a folder.
 */
let stopping: Promise<void> | undefined;
const stopOnce = () => (stopping ??= stopAll());

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping servers and etcd\n`);
    void stopOnce().finally(() => process.exit(code));
  });
}

main().catch(async (error: unknown) => {
  // After a signal, the refused connections are its doing: not worth a stack trace.
  if (!stopping) console.error(error);
  await stopOnce();
  process.exit(1);
});
