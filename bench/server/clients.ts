// The two gRPC clients bench:server compares, behind one interface: Qdrant's official
// @qdrant/js-client-grpc (connect-node + protobuf-es, as users run it) and a lean @grpc/grpc-js client that
// calls the method paths directly with the serializers of the protos the server itself loads.
import * as grpc from '@grpc/grpc-js';
import { QdrantClient } from '@qdrant/js-client-grpc';
import { readFileSync } from 'node:fs';
import { loadServiceDefinitions } from '../../test/e2e/support/grpc-clients';

/** The keyword payload field and the value 10% of the points carry. */
export const TAG_FIELD = 'tag';
export const TAG_MATCH = 't0';

export interface SearchOptions {
  limit: number;
  ef: number;
}

/** One search client: ids of the top `limit` points, plain or with the `tag = t0` filter. */
export interface SearchClient {
  search(query: number[], filtered: boolean): Promise<number[]>;
  close(): void;
}

/** The official client; each instance has its own HTTP/2 session (connect-node transport). */
export function officialClient(port: number, apiKey: string, options: SearchOptions): SearchClient {
  // The key as a header: the same bytes as `apiKey`, without its warning about plaintext on every client.
  const client = new QdrantClient({
    host: '127.0.0.1',
    port,
    headers: { 'api-key': apiKey },
    checkCompatibility: false,
  });
  const points = client.api('points');
  const filter = {
    must: [
      {
        conditionOneOf: {
          case: 'field' as const,
          value: { key: TAG_FIELD, match: { matchValue: { case: 'keyword' as const, value: TAG_MATCH } } },
        },
      },
    ],
  };
  const limit = BigInt(options.limit);
  const params = { hnswEf: BigInt(options.ef) };
  return {
    async search(vector, filtered) {
      const response = await points.search({
        collectionName: 'bench',
        vector,
        limit,
        params,
        filter: filtered ? filter : undefined,
      });
      return response.result.map((p) => Number(p.id?.pointIdOptions.value));
    },
    // connect-node has no close; its session ends when the server stops.
    close: () => undefined,
  };
}

/** The `qdrant.*` service definitions, parsed once with the server's proto-loader options. */
let definitions: ReturnType<typeof loadServiceDefinitions> | undefined;

/** A plain grpc-js client of one `qdrant.*` service: unary calls by method name, api-key metadata. */
export class RawClient {
  private readonly client: grpc.Client;
  private readonly service: grpc.ServiceDefinition;

  constructor(
    address: string,
    private readonly metadata: grpc.Metadata,
    serviceName = 'qdrant.Points',
  ) {
    definitions ??= loadServiceDefinitions('qdrant');
    this.service = definitions[serviceName] as grpc.ServiceDefinition;
    // A channel of its own, so 8 clients are 8 connections as 8 official clients are.
    this.client = new grpc.Client(address, grpc.credentials.createInsecure(), {
      'grpc.use_local_subchannel_pool': 1,
    });
  }

  unary<Res>(method: string, request: object): Promise<Res> {
    const m = this.service[method] as grpc.MethodDefinition<object, Res>;
    return new Promise((resolve, reject) =>
      this.client.makeUnaryRequest(
        m.path,
        m.requestSerialize,
        m.responseDeserialize,
        request,
        this.metadata.clone(),
        (error, response) => (error ? reject(error) : resolve(response as Res)),
      ),
    );
  }

  close(): void {
    this.client.close();
  }
}

/** Wire shape of a search answer under proto-loader's options (uint64 as string). */
interface RawSearchResponse {
  result: { id: { num?: string } }[];
}

export function rawClient(address: string, apiKey: string, options: SearchOptions): SearchClient {
  const metadata = new grpc.Metadata();
  metadata.set('api-key', apiKey);
  const client = new RawClient(address, metadata);
  const filter = { must: [{ field: { key: TAG_FIELD, match: { keyword: TAG_MATCH } } }] };
  const params = { hnswEf: options.ef };
  return {
    async search(vector, filtered) {
      const response = await client.unary<RawSearchResponse>('Search', {
        collectionName: 'bench',
        vector,
        limit: options.limit,
        params,
        filter: filtered ? filter : undefined,
      });
      return response.result.map((p) => Number(p.id.num));
    },
    close: () => client.close(),
  };
}

/**
 * The lean grpc-js client calling `Points/Query` instead of `Search`: the request REST's `…/points/query` carries
 * (a nearest query of the vector, limit, hnsw_ef, the filter), so REST and gRPC are compared on the same call.
 */
export function rawQueryClient(address: string, apiKey: string, options: SearchOptions): SearchClient {
  const metadata = new grpc.Metadata();
  metadata.set('api-key', apiKey);
  const client = new RawClient(address, metadata);
  const filter = { must: [{ field: { key: TAG_FIELD, match: { keyword: TAG_MATCH } } }] };
  const params = { hnswEf: options.ef };
  return {
    async search(vector, filtered) {
      const response = await client.unary<RawSearchResponse>('Query', {
        collectionName: 'bench',
        query: { nearest: { dense: { data: vector } } },
        limit: options.limit,
        params,
        filter: filtered ? filter : undefined,
      });
      return response.result.map((p) => Number(p.id.num));
    },
    close: () => client.close(),
  };
}

const CLOCK_TICKS_PER_S = 100; // USER_HZ: /proc reports utime and stime in 1/100 s on Linux

/** CPU time (user + system, all threads) a process has used so far, in ms, from /proc/<pid>/stat. */
export function processCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** CPU time (user + system) one thread has used so far, in ms; a process's main thread has its pid as tid. */
export function threadCpuMs(pid: number, tid = pid): number {
  return statCpuMs(`/proc/${pid}/task/${tid}/stat`);
}

function statCpuMs(path: string): number {
  const stat = readFileSync(path, 'utf8');
  // fields after "pid (comm) ": state is field 3, utime 14 and stime 15
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
}

/** Resident set size of a process in bytes (Linux /proc). */
export function residentBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? Number(kb) * 1024 : NaN;
}
