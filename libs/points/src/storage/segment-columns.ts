import { JsonObject } from '@vectorstore/common';
import { PointId } from '../model/point-id.model';
import { NamedVectors, Vector } from '../model/vectors.model';
import { VectorSpace } from './vector-space';

/**
 * The live points of the segments an optimization rebuilds, column by column: what crosses to the
 * builder's worker thread. Dense vectors of a space are one Float32Array (transferred, not copied)
 * instead of an object per point, which keeps a large rebuild to one copy of its vectors.
 */
export interface SegmentColumns {
  ids: PointId[];
  versions: number[];
  /** Undefined for a point without payload. */
  payloads: Array<JsonObject | undefined>;
  /** Per dense space: the indexes (into ids) of the points that have a vector, and the vectors back to back. */
  dense: Array<{ name: string; dim: number; points: Int32Array; values: Float32Array }>;
  /** Per sparse or multivector space: (point index, vector) pairs. */
  other: Array<{ name: string; entries: Array<[number, Vector]> }>;
}

/** What a segment offers to be read column by column (the live points of a source segment). */
export interface ColumnSource {
  forEachLivePayload(visit: (slot: number, payload: JsonObject) => void): void;
  pointId(slot: number): PointId;
  pointVersion(slot: number): number;
  vectorNames(): string[];
  vectorStore(
    name: string,
  ): { readonly count: number; forEach(visit: (slot: number, vector: Vector) => void): void } | undefined;
}

/** The live points of `sources`, in order; vectors of dense spaces are packed per space. */
export function collectColumns(
  sources: readonly ColumnSource[],
  denseDims: ReadonlyMap<string, number>,
): SegmentColumns {
  const columns: SegmentColumns = { ids: [], versions: [], payloads: [], dense: [], other: [] };
  const dense = new Map<string, { dim: number; points: number[]; values: Float32Array; length: number }>();
  const other = new Map<string, Array<[number, Vector]>>();
  for (const [name, dim] of denseDims) {
    const capacity = sources.reduce((sum, source) => sum + (source.vectorStore(name)?.count ?? 0), 0);
    dense.set(name, { dim, points: [], values: new Float32Array(capacity * dim), length: 0 });
  }
  for (const source of sources) {
    const indexOf = new Map<number, number>();
    source.forEachLivePayload((slot, payload) => {
      indexOf.set(slot, columns.ids.length);
      columns.ids.push(source.pointId(slot));
      columns.versions.push(source.pointVersion(slot));
      columns.payloads.push(Object.keys(payload).length === 0 ? undefined : payload);
    });
    for (const name of source.vectorNames()) {
      const packed = dense.get(name);
      source.vectorStore(name)?.forEach((slot, vector) => {
        const index = indexOf.get(slot);
        if (index === undefined) return;
        if (packed && vector.kind === 'dense') {
          packed.points.push(index);
          packed.values.set(vector.values, packed.length * packed.dim);
          packed.length++;
        } else {
          let entries = other.get(name);
          if (!entries) other.set(name, (entries = []));
          entries.push([index, vector]);
        }
      });
    }
  }
  for (const [name, packed] of dense) {
    columns.dense.push({
      name,
      dim: packed.dim,
      points: Int32Array.from(packed.points),
      values: packed.values.subarray(0, packed.length * packed.dim),
    });
  }
  for (const [name, entries] of other) columns.other.push({ name, entries });
  return columns;
}

/** Columns of points given one by one (tests, small builds). */
export function columnsOf(
  points: ReadonlyArray<{ id: PointId; version: number; payload: JsonObject; vectors: NamedVectors }>,
  denseDims: ReadonlyMap<string, number>,
): SegmentColumns {
  const sources = points.map((point): ColumnSource => ({
    forEachLivePayload: (visit) => visit(0, point.payload),
    pointId: () => point.id,
    pointVersion: () => point.version,
    vectorNames: () => Object.keys(point.vectors),
    vectorStore: (name) => {
      const vector = Object.hasOwn(point.vectors, name) ? point.vectors[name] : undefined;
      return vector && { count: 1, forEach: (visit) => visit(0, vector) };
    },
  }));
  return collectColumns(sources, denseDims);
}

/** Buffers to transfer (not copy) to a worker with the columns. */
export function transferablesOf(columns: SegmentColumns): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const d of columns.dense) {
    buffers.add(d.values.buffer as ArrayBuffer);
    buffers.add(d.points.buffer as ArrayBuffer);
  }
  return [...buffers];
}

/** Dimensions of the dense spaces (the ones packed per space in columns). */
export function denseDimsOf(spaces: ReadonlyMap<string, VectorSpace>): Map<string, number> {
  const dims = new Map<string, number>();
  for (const [name, space] of spaces) if (space.kind === 'dense') dims.set(name, space.dim);
  return dims;
}
