// The soak's two kinds of client, both Qdrant's official ones: REST (@qdrant/js-client-rest, the Query API)
// and gRPC (@qdrant/js-client-grpc, Search). Each does the same six operations on the soak's collection.
import { QdrantClient as RestClient } from '@qdrant/js-client-rest';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the gRPC client ships ESM and CommonJS; jest and tsx load the CommonJS build
const grpcModule = require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc');

export interface SoakPoint {
  id: number;
  vector: number[];
  /** `kind` (indexed keyword, filtered searches) and `n` (indexed integer, filtered scrolls). */
  kind: string;
  n: number;
}

export interface SoakClient {
  readonly transport: 'rest' | 'grpc';
  upsert(points: readonly SoakPoint[]): Promise<void>;
  deletePoints(ids: readonly number[]): Promise<void>;
  /** Sets `note` on the points with `n` in [from, from + width) (by filter: ids may have been deleted meanwhile). */
  setPayload(from: number, width: number, note: string): Promise<void>;
  /** Nearest 10 among points of one `kind`; returns how many came back. */
  search(vector: number[], kind: string): Promise<number>;
  /** Up to 50 points with `n` in [from, from + width), with payloads; returns how many came back. */
  scroll(from: number, width: number): Promise<number>;
  /** Creates a collection snapshot and deletes it again (so the disk does not fill); returns its size in bytes. */
  snapshot(): Promise<number>;
}

export interface SoakTarget {
  httpUrl: string;
  grpcPort: number;
  apiKey: string;
  collection: string;
}

/** A REST client; the key goes in a header (the apiKey option warns about plain HTTP, which loopback is). */
export function restClient(target: SoakTarget): SoakClient {
  const client = new RestClient({
    url: target.httpUrl,
    headers: { 'api-key': target.apiKey },
    checkCompatibility: false,
    timeout: 120_000,
  });
  const name = target.collection;
  return {
    transport: 'rest',
    async upsert(points) {
      await client.upsert(name, {
        wait: true,
        points: points.map((p) => ({ id: p.id, vector: p.vector, payload: { kind: p.kind, n: p.n } })),
      });
    },
    async deletePoints(ids) {
      await client.delete(name, { wait: true, points: [...ids] });
    },
    async setPayload(from, width, note) {
      await client.setPayload(name, {
        wait: true,
        filter: { must: [{ key: 'n', range: { gte: from, lt: from + width } }] },
        payload: { note },
      });
    },
    async search(vector, kind) {
      const result = await client.query(name, {
        query: vector,
        filter: { must: [{ key: 'kind', match: { value: kind } }] },
        limit: 10,
      });
      return result.points.length;
    },
    async scroll(from, width) {
      const result = await client.scroll(name, {
        filter: { must: [{ key: 'n', range: { gte: from, lt: from + width } }] },
        limit: 50,
        with_payload: true,
      });
      return result.points.length;
    },
    async snapshot() {
      const created = await client.createSnapshot(name, { wait: true });
      if (!created?.name) throw new Error('snapshot creation returned no name');
      await client.deleteSnapshot(name, created.name, { wait: true });
      return created.size;
    },
  };
}

/** A gRPC client on the server's gRPC port. */
export function grpcClient(target: SoakTarget): SoakClient {
  const client = new grpcModule.QdrantClient({
    host: '127.0.0.1',
    port: target.grpcPort,
    https: false,
    headers: { 'api-key': target.apiKey },
    checkCompatibility: false,
    timeout: 120_000,
  });
  const collectionName = target.collection;
  const points = client.api('points');
  const snapshots = client.api('snapshots');
  const selector = (ids: readonly number[]) => ({
    pointsSelectorOneOf: {
      case: 'points' as const,
      value: { ids: ids.map((id) => ({ pointIdOptions: { case: 'num' as const, value: BigInt(id) } })) },
    },
  });
  const nRange = (from: number, width: number) => ({
    conditionOneOf: { case: 'field' as const, value: { key: 'n', range: { gte: from, lt: from + width } } },
  });
  return {
    transport: 'grpc',
    async upsert(batch) {
      await points.upsert({
        collectionName,
        wait: true,
        points: batch.map((p) => ({
          id: { pointIdOptions: { case: 'num', value: BigInt(p.id) } },
          vectors: { vectorsOptions: { case: 'vector', value: { data: p.vector } } },
          payload: {
            kind: { kind: { case: 'stringValue', value: p.kind } },
            n: { kind: { case: 'integerValue', value: BigInt(p.n) } },
          },
        })),
      });
    },
    async deletePoints(ids) {
      await points.delete({ collectionName, wait: true, points: selector(ids) });
    },
    async setPayload(from, width, note) {
      await points.setPayload({
        collectionName,
        wait: true,
        payload: { note: { kind: { case: 'stringValue', value: note } } },
        pointsSelector: { pointsSelectorOneOf: { case: 'filter', value: { must: [nRange(from, width)] } } },
      });
    },
    async search(vector, kind) {
      const response = await points.search({
        collectionName,
        vector,
        filter: {
          must: [
            {
              conditionOneOf: {
                case: 'field',
                value: { key: 'kind', match: { matchValue: { case: 'keyword', value: kind } } },
              },
            },
          ],
        },
        limit: 10n,
      });
      return response.result.length;
    },
    async scroll(from, width) {
      const response = await points.scroll({
        collectionName,
        filter: { must: [nRange(from, width)] },
        limit: 50,
        withPayload: { selectorOptions: { case: 'enable', value: true } },
      });
      return response.result.length;
    },
    async snapshot() {
      const created = await snapshots.create({ collectionName });
      const snapshotName = created.snapshotDescription?.name;
      if (!snapshotName) throw new Error('snapshot creation returned no name');
      await snapshots.delete({ collectionName, snapshotName });
      return Number(created.snapshotDescription?.size ?? NaN);
    },
  };
}
