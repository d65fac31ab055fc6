import { useEffect, useState } from 'preact/hooks';
import { request } from '../api/http';
import { type MetricsSample, type Rate, rateBetween, sampleOf } from '../api/prometheus';
import type { CollectionClusterInfo } from '../api/types';
import { messageOf, useLoad } from '../ui/hooks';
import { ErrorText, Sparkline } from '../ui/widgets';
import { ShardTable } from './collection';

/** How often `/metrics` is read, ms, and how many rates the charts keep. */
const METRICS_EVERY_MS = 2000;
const KEEP = 60;

interface ClusterView {
  status: string;
  version?: string;
  collections: { name: string; cluster: CollectionClusterInfo }[];
}

async function loadCluster(): Promise<ClusterView> {
  const [cluster, root, list] = await Promise.all([
    request<{ status: string }>('GET', '/cluster'),
    fetch('/', { cache: 'no-store' }).then((r) => r.json() as Promise<{ version?: string }>),
    request<{ collections: { name: string }[] }>('GET', '/collections'),
  ]);
  const collections = await Promise.all(
    list.collections
      .map((c) => c.name)
      .sort()
      .map(async (name) => ({
        name,
        cluster: await request<CollectionClusterInfo>('GET', `/collections/${encodeURIComponent(name)}/cluster`),
      })),
  );
  return { status: cluster.status, version: root.version, collections };
}

/** Peers, shards per peer and their states, shard transfers, and request rate and latency from `/metrics`. */
export function ClusterPage() {
  const view = useLoad(loadCluster, 'cluster');
  const peers = new Map<string, { shards: number; states: Set<string> }>();
  for (const { cluster } of view.data?.collections ?? []) {
    const add = (peer: string, state = '?'): void => {
      const entry = peers.get(peer) ?? { shards: 0, states: new Set<string>() };
      entry.shards += 1;
      entry.states.add(state);
      peers.set(peer, entry);
    };
    cluster.local_shards.forEach((s) => add(String(cluster.peer_id), s.state));
    cluster.remote_shards.forEach((s) => add(String(s.peer_id ?? '?'), s.state));
  }
  return (
    <section>
      <h2>Cluster and health</h2>
      <ErrorText message={view.error} />
      <Metrics />
      {view.data ? (
        <>
          <div class="card">
            <h3>Node</h3>
            <p data-testid="cluster-status">
              Cluster mode: <strong>{view.data.status}</strong>
              {view.data.status === 'disabled' ? ' (standalone: one peer holds every shard)' : ''}
              {view.data.version ? ` · version ${view.data.version}` : ''}
            </p>
            <table data-testid="peers">
              <thead>
                <tr>
                  <th>Peer</th>
                  <th class="num">Shards</th>
                  <th>Shard states</th>
                </tr>
              </thead>
              <tbody>
                {[...peers].map(([peer, entry]) => (
                  <tr key={peer}>
                    <td>
                      <code>{peer}</code>
                    </td>
                    <td class="num">{entry.shards}</td>
                    <td>{[...entry.states].join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {view.data.collections.map(({ name, cluster }) => (
            <ShardTable key={name} collection={name} cluster={cluster} />
          ))}
        </>
      ) : null}
    </section>
  );
}

function Metrics() {
  const [rates, setRates] = useState<Rate[]>([]);
  const [error, setError] = useState<string>();
  useEffect(() => {
    let previous: MetricsSample | undefined;
    let live = true;
    const read = (): void => {
      request<string>('GET', '/metrics', undefined, { text: true }).then(
        (text) => {
          if (!live) return;
          const sample = sampleOf(text, Date.now());
          if (previous) {
            const rate = rateBetween(previous, sample);
            setRates((list) => [...list.slice(-(KEEP - 1)), rate]);
          }
          previous = sample;
          setError(undefined);
        },
        (failure: unknown) => live && setError(messageOf(failure)),
      );
    };
    read();
    const timer = setInterval(read, METRICS_EVERY_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  return (
    <div class="card">
      <h3>Requests (from /metrics, every {METRICS_EVERY_MS / 1000} s)</h3>
      <ErrorText message={error} />
      <div class="row">
        <Sparkline label="requests per second" unit="req/s" values={rates.map((r) => r.perSecond)} />
        <Sparkline label="mean latency" unit="ms" values={rates.map((r) => r.latencyMs)} />
      </div>
    </div>
  );
}
