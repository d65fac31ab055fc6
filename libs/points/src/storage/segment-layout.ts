import { VectorSpace } from './vector-space';

/** What of an immutable segment goes to files of its own rather than into memory. */
export interface SegmentDiskLayout {
  /** Payloads in `<id>.pay` (`on_disk_payload`). */
  payloads: boolean;
  /** Dense vector spaces whose original vectors go to `<id>.vec` (`on_disk`, `memmap_threshold`). */
  vectors: ReadonlySet<string>;
}

/** How the collection wants its optimized segments stored. */
export interface SegmentStorageOptions {
  /** `on_disk_payload`. */
  payloadsOnDisk: boolean;
  /** `memmap_threshold` in KB (1 KB = one 256-d f32 vector); 0 or absent: only `on_disk` spaces go to disk. */
  memmapThresholdKb?: number;
}

/**
 * Which parts of a segment with `vectorKb` KB of vectors go to files: payloads with
 * `on_disk_payload`; the dense spaces with `on_disk`, or all of them above `memmap_threshold`.
 */
export function diskLayoutOf(vectorKb: number, spaces: Iterable<VectorSpace>, storage: SegmentStorageOptions): SegmentDiskLayout {
  const threshold = storage.memmapThresholdKb ?? 0;
  const large = threshold > 0 && vectorKb > threshold;
  const vectors = new Set<string>();
  for (const space of spaces) if (space.kind === 'dense' && (space.onDisk || large)) vectors.add(space.name);
  return { payloads: storage.payloadsOnDisk, vectors };
}

/**
 * A key of everything a segment's build depends on: the vector spaces' index parameters and what
 * went to disk. A segment whose key differs from what the current config gives is rebuilt (Qdrant's
 * config-mismatch optimization). Search-time settings (full_scan_threshold) and build threads are left out.
 */
export function segmentProfile(spaces: Iterable<VectorSpace>, layout: SegmentDiskLayout): string {
  const built = [...spaces]
    .map((space) =>
      space.kind === 'sparse'
        ? { name: space.name, kind: space.kind, idf: space.idf }
        : {
            name: space.name, kind: space.kind, dim: space.dim, distance: space.distance, datatype: space.datatype,
            m: space.hnsw.m, efConstruct: space.hnsw.efConstruct, quantization: space.quantization ?? null,
          },
    )
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return JSON.stringify({ spaces: built, payloadsOnDisk: layout.payloads, vectorsOnDisk: [...layout.vectors].sort() });
}
