import { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { Segment } from '../storage/segment';
import { SegmentColumns } from '../storage/segment-columns';
import { diskLayoutOf, SegmentStorageOptions } from '../storage/segment-layout';
import { VectorSpace } from '../storage/vector-space';

/** Everything needed to build an indexed segment, in a form that crosses a worker boundary. */
export interface SegmentBuildJob {
  /** Id of the new segment (reserved by the shard, so its files are not cleaned up mid-build). */
  id: string;
  spaces: Array<[string, VectorSpace]>;
  /** The live points of the sources (dense vectors packed per space, transferred to the worker). */
  columns: SegmentColumns;
  fieldIndexes: Array<{ field: string; type: PayloadSchemaType; params?: PayloadIndexParams }>;
  /** Folder of the shard's segment files, where the segment's own files are written. */
  dir: string;
  storage: SegmentStorageOptions;
}

/**
 * Builds the segment (HNSW graphs, quantization, payload indexes), writes the files it keeps data in,
 * and returns its body bytes.
 */
export async function buildSegmentBytes(job: SegmentBuildJob): Promise<Uint8Array> {
  const spaces = new Map(job.spaces);
  const segment = Segment.buildFromColumns(spaces, job.columns, job.fieldIndexes, job.id);
  try {
    return await segment.saveToDisk(job.dir, diskLayoutOf(segment.vectorDataKb(), spaces.values(), job.storage));
  } finally {
    segment.dispose();
  }
}
