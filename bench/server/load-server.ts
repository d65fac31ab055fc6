// Loads a bench dataset into a running server the same way for every server bench (run.ts, pgvector.ts):
// collection `bench`, bulk upload with indexing off, a keyword payload index on the tag, then indexing into one
// segment, waiting until the collection is Green and checking that one indexed segment holds every point.
import * as grpc from '@grpc/grpc-js';
import type { RunningServer } from '../../test/e2e/support/server-harness';
import type { Dataset } from '../engine/datasets';
import { RawClient, TAG_FIELD } from './clients';
import { progress } from './measure';

export interface LoadOptions {
  m: number;
  efConstruct: number;
  /** KB of vector data under which a filtered search scans exactly (the server's default is 10000). */
  fullScanThreshold: number;
  onDisk?: boolean;
  batch?: number;
  concurrency?: number;
}

/** Segment info from REST telemetry (details level 4), Qdrant's shape. */
export interface SegmentInfo {
  segment_type: string;
  num_points: number;
  is_appendable: boolean;
}

async function segmentsOf(server: RunningServer): Promise<SegmentInfo[]> {
  const response = await fetch(`${server.httpUrl}/telemetry?details_level=4`, {
    headers: { 'api-key': server.apiKey },
  });
  const body = (await response.json()) as {
    result: { collections: { collections: { shards: { local: { segments: { info: SegmentInfo }[] } }[] }[] } };
  };
  return body.result.collections.collections[0].shards.flatMap((shard) => shard.local.segments.map((s) => s.info));
}

interface CollectionInfo {
  result: { status: string; pointsCount?: string; indexedVectorsCount?: string };
}

/**
 * Point `i` of `ds` becomes point id `i + 1` with payload tag `t${i % 10}`. Returns the seconds each step took
 * and the segments at the end.
 */
export async function loadBenchCollection(
  server: RunningServer,
  ds: Dataset,
  { m, efConstruct, fullScanThreshold, onDisk = false, batch = 1_000, concurrency = 4 }: LoadOptions,
): Promise<{ loadSeconds: number; indexSeconds: number; segments: SegmentInfo[] }> {
  const metadata = new grpc.Metadata();
  metadata.set('api-key', server.apiKey);
  const collections = new RawClient(server.grpcAddress, metadata, 'qdrant.Collections');
  const points = new RawClient(server.grpcAddress, metadata);
  try {
    // Bulk load as Qdrant advises: indexing off while uploading, so the points stay in one segment.
    await collections.unary('Create', {
      collectionName: 'bench',
      vectorsConfig: { params: { size: ds.dim, distance: 'Euclid', onDisk } },
      hnswConfig: { m, efConstruct, fullScanThreshold },
      optimizersConfig: { indexingThreshold: 0, defaultSegmentNumber: 1 },
    });
    const loadStart = performance.now();
    let nextBatch = 0;
    const batches = Math.ceil(ds.n / batch);
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let b = nextBatch++; b < batches; b = nextBatch++) {
          const upsert = [];
          for (let i = b * batch; i < Math.min(ds.n, (b + 1) * batch); i++) {
            upsert.push({
              id: { num: i + 1 },
              vectors: { vector: { dense: { data: Array.from(ds.base.subarray(i * ds.dim, (i + 1) * ds.dim)) } } },
              payload: { [TAG_FIELD]: { stringValue: `t${i % 10}` } },
            });
          }
          await points.unary('Upsert', { collectionName: 'bench', points: upsert, wait: false });
          progress('server: upload', b + 1, batches);
        }
      }),
    );
    // Applied in order after the upserts; waiting for it waits for them.
    await points.unary('CreateFieldIndex', {
      collectionName: 'bench',
      fieldName: TAG_FIELD,
      fieldType: 'FieldTypeKeyword',
      wait: true,
    });
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const indexStart = performance.now();
    await collections.unary('Update', { collectionName: 'bench', optimizersConfig: { indexingThreshold: 1 } });
    for (;;) {
      const info = (await collections.unary<CollectionInfo>('Get', { collectionName: 'bench' })).result;
      const indexed = Number(info.indexedVectorsCount ?? 0);
      progress('server: index (optimizer)', indexed, ds.n);
      if (info.status === 'Green' && indexed >= ds.n && Number(info.pointsCount) === ds.n) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const indexSeconds = (performance.now() - indexStart) / 1000;
    const segments = await segmentsOf(server);
    const holding = segments.filter((s) => s.num_points > 0);
    if (holding.length !== 1 || holding[0].segment_type !== 'indexed') {
      throw new Error(`expected all points in one indexed segment, got ${JSON.stringify(segments)}`);
    }
    return { loadSeconds, indexSeconds, segments };
  } finally {
    collections.close();
    points.close();
  }
}
