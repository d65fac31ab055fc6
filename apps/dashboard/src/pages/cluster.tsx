import { useEffect, useState } from 'preact/hooks';
import { parseJson, request } from '../api/http';
import { type MetricsSample, type Rate, rateBetween, sampleOf } from '../api/prometheus';
import { type ClusterStatus, peerRows } from '../api/cluster';
import type { CollectionClusterInfo } from '../api/types';
import { messageOf, useLoad } from '../ui/hooks';
import { LineChart } from '../ui/chart';
import { ErrorText, JsonView } from '../ui/widgets';
import { ShardTable } from './collection';

/** How often `/metrics` is read, ms, and how many rates the charts keep. */
const METRICS_EVERY_MS = 2000;
const KEEP = 60;

interface ClusterView {
  status: ClusterStatus;
  version?: string;
  collections: { name: string; cluster: CollectionClusterInfo }[];
}

async function loadCluster(): Promise<ClusterView> {
  const [status, root, list] = await Promise.all([
    request<ClusterStatus>('GET', '/cluster'),
    // Through request(): the down banner and time-outs apply. `/` answers no `result` envelope, hence text.
    request<string>('GET', '/', undefined, { text: true }).then((text) => parseJson(text) as { version?: string }),
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
  return { status, version: root.version, collections };
}

/** Peers, shards per peer and their states, shard transfers, and request rate and latency from `/metrics`. */
export function ClusterPage() {
  const view = useLoad(loadCluster, 'cluster');
  const data = view.data;
  const peers = data
    ? peerRows(
        data.status,
        data.collections.map((c) => c.cluster),
      )
    : [];
  const consensus = data?.status.consensus_thread_status;
  const failures = Object.entries(data?.status.message_send_failures ?? {});
  return (
    <section>
      <h2>Cluster and health</h2>
      <ErrorText message={view.error} />
      <Metrics />
      {data ? (
        <>
          <div class="card">
            <h3>Peers</h3>
            <p data-testid="cluster-status">
              Cluster mode: <strong>{data.status.status}</strong>
              {data.status.status === 'disabled' ? ' (standalone: this node holds every shard)' : ''}
              {data.status.raft_info?.role ? ` · this node is ${data.status.raft_info.role.toLowerCase()}` : ''}
              {consensus?.consensus_thread_status ? ` · consensus ${consensus.consensus_thread_status}` : ''}
              {data.version ? ` · version ${data.version}` : ''}
            </p>
            <ErrorText message={consensus?.err} testId="consensus-error" />
            <table data-testid="peers">
              <thead>
                <tr>
                  <th>Peer</th>
                  <th>Address</th>
                  <th>Role</th>
                  <th class="num">Shards</th>
                  <th>Shard states</th>
                </tr>
              </thead>
              <tbody>
                {peers.map((peer) => (
                  <tr key={peer.peer}>
                    <td>
                      <code>{peer.peer}</code>
                    </td>
                    <td>{peer.uri ?? '—'}</td>
                    <td>{peer.roles.join(', ') || '—'}</td>
                    <td class="num">{peer.shards}</td>
                    <td>
                      {Object.entries(peer.states)
                        .map(([state, n]) => `${state} × ${n}`)
                        .join(', ') || '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {failures.length > 0 ? (
              <>
                <h3>Messages that failed to reach a peer</h3>
                <JsonView value={Object.fromEntries(failures)} />
              </>
            ) : null}
          </div>
          {data.collections.map(({ name, cluster }) => (
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
        <RateChart rates={rates} label="requests per second" unit="req/s" pick={(r) => r.perSecond} />
        <RateChart rates={rates} label="mean latency" unit="ms" pick={(r) => r.latencyMs} />
      </div>
    </div>
  );
}

/** One series of the last rates against seconds ago, with axes. */
function RateChart(props: { rates: Rate[]; label: string; unit: string; pick: (rate: Rate) => number }) {
  const now = props.rates.length > 0 ? props.rates[props.rates.length - 1].at : 0;
  const values = props.rates.map(props.pick);
  const last = values.length > 0 ? values[values.length - 1] : 0;
  return (
    <LineChart
      title={props.label}
      testId={`chart-${props.label}`}
      summary={`${props.label}: ${last.toFixed(last < 10 ? 2 : 0)} ${props.unit}`}
      xs={props.rates.map((rate) => (rate.at - now) / 1000)}
      ys={values}
      xLabel="seconds ago"
      yLabel={props.unit}
      xFormat={(x) => String(Math.round(-x))}
    />
  );
}
