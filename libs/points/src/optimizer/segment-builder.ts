import { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { Segment, SegmentDiskLayout, SegmentPoint } from '../storage/segment';
import { VectorSpace } from '../storage/vector-space';

/** How the collection wants an optimized segment stored. */
export interface SegmentStorageOptions {
  /** Folder of the shard's segment files. */
  dir: string;
  /** `on_disk_payload`. */
  payloadsOnDisk: boolean;
  /** `memmap_threshold` in KB (1 KB = one 256-d f32 vector); 0 or absent: only `on_disk` spaces go to disk. */
  memmapThresholdKb?: number;
}

/** Everything needed to build an indexed segment, in a form that crosses a worker boundary. */
export interface SegmentBuildJob {
  /** Id of the new segment (reserved by the shard, so its files are not cleaned up mid-build). */
  id: string;
  spaces: Array<[string, VectorSpace]>;
  points: SegmentPoint[];
  fieldIndexes: Array<{ field: string; type: PayloadSchemaType; params?: PayloadIndexParams }>;
  storage: SegmentStorageOptions;
}

/**
 * Which parts of a built segment go to files: payloads with `on_disk_payload`; the dense spaces with
 * `on_disk`, or all of them once the segment's vectors exceed `memmap_threshold`.
 */
export function diskLayoutOf(segment: Segment, spaces: ReadonlyMap<string, VectorSpace>, storage: SegmentStorageOptions): SegmentDiskLayout {
  const threshold = storage.memmapThresholdKb ?? 0;
  const large = threshold > 0 && segment.vectorDataKb() > threshold;
  const vectors = new Set<string>();
  for (const [name, space] of spaces) if (space.kind === 'dense' && (space.onDisk || large)) vectors.add(name);
  return { payloads: storage.payloadsOnDisk, vectors };
}

/**
 * Builds the segment (HNSW graphs, quantization, payload indexes), writes the files it keeps data in,
 * and returns its body bytes.
 */
export async function buildSegmentBytes(job: SegmentBuildJob): Promise<Uint8Array> {
  const spaces = new Map(job.spaces);
  const segment = Segment.build(spaces, job.points, job.fieldIndexes, job.id);
  try {
    return await segment.saveToDisk(job.storage.dir, diskLayoutOf(segment, spaces, job.storage));
  } finally {
    segment.dispose();
  }
}
