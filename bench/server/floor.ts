// The transport's floor: what one gRPC search costs the server when there is almost nothing to search.
// vectorstore on a 100-point collection (one segment, exact scan) against a bare @grpc/grpc-js server with
// the same protos that answers a fixed 10-hit response (bare-grpc-server.ts), through the same lean grpc-js
// client, 1 and 8 clients, rounds of the two interleaved so that load on the shared machine hits both alike.
// Columns: QPS, p50/p99 latency, server CPU per call (utime + stime from /proc, all threads), and the
// vectorstore ÷ bare ratio. The bare server bounds what any work on top of grpc-js can reach here.
// Env: FLOOR_CALLS (3000 per round), FLOOR_ROUNDS (4).
import { rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startServer } from '../../test/e2e/support/server-harness';
import { table } from '../engine/report';
import { processCpuMs, rawClient, SearchClient } from './clients';

const CALLS = Number(process.env.FLOOR_CALLS ?? 3000);
const ROUNDS = Number(process.env.FLOOR_ROUNDS ?? 4);
const DIM = 128;
const POINTS = 100;

interface Target {
  name: string;
  pid: number;
  address: string;
  apiKey: string;
}

interface Sample {
  qps: number;
  p50: number;
  p99: number;
  cpuUs: number;
}

function vectors(n: number, seed: number): number[][] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: n }, () => Array.from({ length: DIM }, next));
}

async function startBare(): Promise<{ pid: number; port: number; stop: () => void }> {
  const tsx = path.join(__dirname, '..', '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const child = spawn(process.execPath, [tsx, path.join(__dirname, 'bare-grpc-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const kill = (pid: number | undefined) => {
    try {
      if (pid !== undefined) process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  // tsx runs the script in a node process of its own: that one listens, and is the one measured
  let timer: NodeJS.Timeout | undefined;
  try {
    const { port, pid } = await new Promise<{ port: number; pid: number }>((resolve, reject) => {
      let out = '';
      timer = setTimeout(() => reject(new Error('the bare server did not start within 30 s')), 30_000);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /PORT (\d+) PID (\d+)/.exec(out);
        if (match) resolve({ port: Number(match[1]), pid: Number(match[2]) });
      });
      child.on('exit', (code) => reject(new Error(`bare server exited (${code})`)));
    });
    return {
      pid,
      port,
      stop: () => {
        kill(pid);
        kill(child.pid);
      },
    };
  } catch (error) {
    kill(child.pid);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

async function round(target: Target, clients: SearchClient[], queries: number[][]): Promise<Sample> {
  const latencies: number[] = [];
  let next = 0;
  const cpu0 = processCpuMs(target.pid);
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      for (let i = next++; i < CALLS; i = next++) {
        const start = performance.now();
        await client.search(queries[i % queries.length], false);
        latencies.push(performance.now() - start);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    qps: CALLS / seconds,
    p50: latencies[Math.floor(latencies.length / 2)],
    p99: latencies[Math.floor(latencies.length * 0.99)],
    cpuUs: ((processCpuMs(target.pid) - cpu0) * 1000) / CALLS,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const server = await startServer({ env: { VECTORSTORE_LOG_LEVEL: 'error' } });
  let bare: Awaited<ReturnType<typeof startBare>> | undefined;
  try {
    bare = await startBare();
    const headers = { 'api-key': server.apiKey, 'content-type': 'application/json' };
    const points = vectors(POINTS, 1).map((vector, i) => ({ id: i + 1, vector }));
    for (const [route, body] of [
      ['/collections/bench', { vectors: { size: DIM, distance: 'Euclid' } }],
      ['/collections/bench/points?wait=true', { points }],
    ] as const) {
      const response = await fetch(`${server.httpUrl}${route}`, { method: 'PUT', headers, body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`PUT ${route}: ${response.status} ${await response.text()}`);
    }
    const targets: Target[] = [
      { name: 'bare @grpc/grpc-js (fixed answer)', pid: bare.pid, address: `127.0.0.1:${bare.port}`, apiKey: '-' },
      { name: `vectorstore, ${POINTS} points`, pid: server.pid, address: server.grpcAddress, apiKey: server.apiKey },
    ];
    const queries = vectors(200, 2);
    const rows: (string | number)[][] = [];
    for (const concurrency of [1, 8]) {
      const clients = targets.map((t) =>
        Array.from({ length: concurrency }, () => rawClient(t.address, t.apiKey, { limit: 10, ef: 64 })),
      );
      for (const [i] of targets.entries())
        for (const c of clients[i]) for (let q = 0; q < 1000; q++) await c.search(queries[q % 200], false);
      const samples: Sample[][] = targets.map(() => []);
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 === 0 ? [0, 1] : [1, 0];
        for (const i of order) {
          samples[i].push(await round(targets[i], clients[i], queries));
          process.stderr.write(`\rfloor: ${concurrency} client(s), round ${r + 1}/${ROUNDS}   `);
        }
      }
      for (const list of clients) for (const c of list) c.close();
      const bareCpu = median(samples[0].map((s) => s.cpuUs));
      const bareQps = median(samples[0].map((s) => s.qps));
      targets.forEach((t, i) => {
        const cpu = median(samples[i].map((s) => s.cpuUs));
        const qps = median(samples[i].map((s) => s.qps));
        rows.push([
          t.name,
          String(concurrency),
          Math.round(qps),
          median(samples[i].map((s) => s.p50)).toFixed(2),
          median(samples[i].map((s) => s.p99)).toFixed(2),
          `${Math.round(cpu)} (${samples[i].map((s) => Math.round(s.cpuUs)).join(', ')})`,
          `${(qps / bareQps).toFixed(2)}× QPS, ${(cpu / bareCpu).toFixed(2)}× CPU`,
        ]);
      });
    }
    process.stderr.write('\n');
    console.log(
      `\nThe transport's floor: ${CALLS} searches per round, ${ROUNDS} rounds per target, medians (each round's CPU in parentheses)\n`,
    );
    console.log(
      table(['server', 'clients', 'QPS', 'p50 ms', 'p99 ms', 'server CPU µs/call', 'vectorstore ÷ bare'], rows),
    );
  } finally {
    bare?.stop();
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true }); // the harness leaves it
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
