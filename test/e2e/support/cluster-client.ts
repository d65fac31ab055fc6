// Raw HTTP calls the cluster e2e files make to one peer, with u64 peer ids kept exact, and what they read back:
// the replicas a peer's cluster info lists, its local replicas' checksums, its live peers.
import type { RunningServer } from './server-harness';

// Answers are read field by field, as the assertions need them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes
export type Json = Record<string, any>;

/** A JSON body with integers of 16 digits or more (u64 peer ids) as strings. */
export function parseExact(text: string): Json | undefined {
  const exact = text.replace(/([:[,]\s*)(\d{16,})(?=\s*[,}\]])/g, '$1"$2"');
  try {
    return exact ? (JSON.parse(exact) as Json) : undefined;
  } catch {
    return { raw: text };
  }
}

/** One REST call with the peer's API key; a string body is sent as is (JSON with u64 ids beyond 2^53). */
export async function peerHttp(
  server: RunningServer,
  method: string,
  route: string,
  body?: unknown,
  timeoutMs = 15_000,
): Promise<{ status: number; body: Json | undefined }> {
  const response = await fetch(`${server.httpUrl}${route}`, {
    method,
    headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, body: parseExact(await response.text()) };
}

/** One replica as a peer's `GET /collections/{c}/cluster` lists it (local or remote). */
export interface ReplicaView {
  shard: number;
  peer: string;
  state: string;
  local: boolean;
}

/** Every replica a peer's cluster info lists (sorted by shard, then peer), its shard count and transfers. */
export async function clusterView(
  server: RunningServer,
  collection: string,
): Promise<{ shardCount: number; replicas: ReplicaView[]; transfers: Json[] }> {
  const { status, body } = await peerHttp(server, 'GET', `/collections/${collection}/cluster`);
  if (status !== 200) throw new Error(`cluster info of ${collection}: ${status} ${JSON.stringify(body)}`);
  const info = body?.result;
  const self = String(info.peer_id);
  const replicas: ReplicaView[] = [
    ...info.local_shards.map((s: Json) => ({ shard: s.shard_id, peer: self, state: s.state, local: true })),
    ...info.remote_shards.map((s: Json) => ({
      shard: s.shard_id,
      peer: String(s.peer_id),
      state: s.state,
      local: false,
    })),
  ];
  replicas.sort((a, b) => a.shard - b.shard || a.peer.localeCompare(b.peer));
  return { shardCount: info.shard_count, replicas, transfers: info.shard_transfers };
}

/** Each local replica's checksum (`?checksum=true`), by shard id. */
export async function localChecksums(server: RunningServer, collection: string): Promise<Map<number, Json>> {
  const { body } = await peerHttp(server, 'GET', `/collections/${collection}/cluster?checksum=true`);
  return new Map((body?.result.local_shards as Json[]).map((s) => [s.shard_id as number, s.checksum as Json]));
}

/** The live peers' ids as the peer's `GET /cluster` lists them. */
export async function livePeerIds(server: RunningServer): Promise<string[]> {
  const { body } = await peerHttp(server, 'GET', '/cluster');
  return Object.keys(body?.result.peers ?? {}).sort();
}
