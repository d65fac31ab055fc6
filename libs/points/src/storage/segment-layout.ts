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
export function diskLayoutOf(
  vectorKb: number,
  spaces: Iterable<VectorSpace>,
  storage: SegmentStorageOptions,
): SegmentDiskLayout {
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
  return JSON.stringify({
    spaces: spacesKey(spaces),
    payloadsOnDisk: layout.payloads,
    vectorsOnDisk: [...layout.vectors].sort(),
  });
}

/**
 * Whether a segment built with `profile` should be rebuilt under the current config. Vectors move to
 * disk when `on_disk` or `memmap_threshold` asks for it, but back to memory only once neither does
 * (`on_disk` off, memmap disabled): a segment that shrinks below the threshold by deletes stays.
 */
export function isStaleProfile(
  profile: string,
  spaces: ReadonlyMap<string, VectorSpace>,
  vectorKb: number,
  storage: SegmentStorageOptions,
): boolean {
  const built = JSON.parse(profile) as { spaces: unknown; payloadsOnDisk: boolean; vectorsOnDisk: string[] };
  if (
    JSON.stringify(built.spaces) !== JSON.stringify(spacesKey(spaces.values())) ||
    built.payloadsOnDisk !== storage.payloadsOnDisk
  )
    return true;
  const wanted = diskLayoutOf(vectorKb, spaces.values(), storage).vectors;
  const onDisk = new Set(built.vectorsOnDisk);
  const memmap = (storage.memmapThresholdKb ?? 0) > 0;
  for (const [name, space] of spaces) {
    if (space.kind !== 'dense') continue;
    if (wanted.has(name) && !onDisk.has(name)) return true;
    if (onDisk.has(name) && !space.onDisk && !memmap) return true;
  }
  return false;
}

function spacesKey(spaces: Iterable<VectorSpace>): object[] {
  return [...spaces]
    .map((space) =>
      space.kind === 'sparse'
        ? { name: space.name, kind: space.kind, idf: space.idf }
        : {
            name: space.name,
            kind: space.kind,
            dim: space.dim,
            distance: space.distance,
            datatype: space.datatype,
            m: space.hnsw.m,
            efConstruct: space.hnsw.efConstruct,
            quantization: space.quantization ?? null,
          },
    )
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
