import { Injectable } from '@nestjs/common';
import { DomainError, ErrorKind } from '@vectorstore/common';
import type { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { Segment } from '../storage/segment';
import { VectorSpace } from '../storage/vector-space';
import { CollectionContexts } from './collection-context';

/** One dense or multivector space of a segment: how it is stored and searched. */
export interface SegmentVectorConfig {
  size: number;
  distance: string;
  /** Qdrant's `VectorStorageType`: `Memory` in memory, `Mmap` read from the segment's file. */
  storageType: 'Memory' | 'Mmap';
  /** The graph's parameters when the segment has one, else a plain (scanned) index. */
  index: { type: 'plain' } | { type: 'hnsw'; m: number; efConstruct: number; fullScanThreshold: number };
  datatype: string;
  multivector: boolean;
}

/** What telemetry (details level 4 and up) tells about one segment, in Qdrant's terms. */
export interface SegmentTelemetry {
  uuid: string;
  segmentType: 'plain' | 'indexed';
  appendable: boolean;
  numPoints: number;
  /** Live points hidden from reads until optimized (`prevent_unoptimized`). */
  numDeferredPoints: number;
  numVectors: number;
  numIndexedVectors: number;
  numDeletedVectors: number;
  vectorsSizeBytes: number;
  payloadsSizeBytes: number;
  payloadsOnDisk: boolean;
  vectors: Record<string, { count: number; indexed: number; deleted: number }>;
  denseConfig: Record<string, SegmentVectorConfig>;
  sparseConfig: Record<string, { idf: boolean; fullScanThreshold?: number }>;
  fieldIndexes: Record<string, { type: PayloadSchemaType; params?: PayloadIndexParams; points: number }>;
}

/** Per-segment detail of every shard of a collection on this node, for telemetry. */
@Injectable()
export class SegmentsReporter {
  constructor(private readonly contexts: CollectionContexts) {}

  /** Shard id → its segments; none for a collection whose storage could not be loaded. */
  segmentsOf(nameOrAlias: string): Map<number, SegmentTelemetry[]> {
    const out = new Map<number, SegmentTelemetry[]>();
    let storage;
    try {
      storage = this.contexts.resolve(nameOrAlias).storage;
    } catch (error) {
      if (error instanceof DomainError && error.kind === ErrorKind.Internal) return out;
      throw error;
    }
    for (const handle of storage.shards.values()) {
      out.set(
        handle.shardId,
        handle.shard.segments.map((segment) => segmentTelemetry(segment, handle.shard.spaces)),
      );
    }
    return out;
  }
}

export function segmentTelemetry(segment: Segment, spaces: Map<string, VectorSpace>): SegmentTelemetry {
  const vectors: SegmentTelemetry['vectors'] = {};
  const denseConfig: SegmentTelemetry['denseConfig'] = {};
  const sparseConfig: SegmentTelemetry['sparseConfig'] = {};
  let numVectors = 0;
  let numIndexed = 0;
  let anyIndexed = false;
  for (const [name, space] of spaces) {
    const store = segment.vectorStore(name);
    const count = store?.count ?? 0;
    const indexed = store?.indexed ? count : 0;
    anyIndexed ||= store?.indexed === true;
    // Points of the segment without this vector: deleted for it (Qdrant counts them so).
    vectors[name] = { count, indexed, deleted: Math.max(0, segment.pointCount - count) };
    numVectors += count;
    numIndexed += indexed;
    if (space.kind === 'sparse') {
      sparseConfig[name] = {
        idf: space.idf,
        ...(space.fullScanThreshold === undefined ? {} : { fullScanThreshold: space.fullScanThreshold }),
      };
    } else {
      denseConfig[name] = {
        size: space.dim,
        distance: space.distance,
        storageType: store?.onDisk ? 'Mmap' : 'Memory',
        index: store?.indexed
          ? {
              type: 'hnsw',
              m: space.hnsw.m,
              efConstruct: space.hnsw.efConstruct,
              fullScanThreshold: space.hnsw.fullScanThreshold,
            }
          : { type: 'plain' },
        datatype: space.datatype,
        multivector: space.kind === 'multi',
      };
    }
  }
  const fieldIndexes: SegmentTelemetry['fieldIndexes'] = {};
  for (const [field, info] of Object.entries(segment.payloadIndexes.info())) {
    fieldIndexes[field] = { type: info.type, ...(info.params ? { params: info.params } : {}), points: info.points };
  }
  return {
    uuid: segment.id,
    segmentType: anyIndexed ? 'indexed' : 'plain',
    appendable: segment.appendable,
    numPoints: segment.pointCount,
    numDeferredPoints: segment.deferredCount,
    numVectors,
    numIndexedVectors: numIndexed,
    numDeletedVectors: Object.values(vectors).reduce((sum, v) => sum + v.deleted, 0),
    vectorsSizeBytes: Math.round(segment.vectorDataKb() * 1024),
    payloadsSizeBytes: segment.payloadBytes,
    payloadsOnDisk: segment.payloadsOnDisk,
    vectors,
    denseConfig,
    sparseConfig,
    fieldIndexes,
  };
}
