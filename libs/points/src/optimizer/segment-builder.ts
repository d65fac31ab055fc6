import { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { Segment, SegmentPoint } from '../storage/segment';
import { VectorSpace } from '../storage/vector-space';

/** Everything needed to build an indexed segment, in a form that crosses a worker boundary. */
export interface SegmentBuildJob {
  spaces: Array<[string, VectorSpace]>;
  points: SegmentPoint[];
  fieldIndexes: Array<{ field: string; type: PayloadSchemaType; params?: PayloadIndexParams }>;
}

/** Builds the segment (HNSW graphs, quantization, payload indexes) and returns its saved bytes. */
export function buildSegmentBytes(job: SegmentBuildJob): Uint8Array {
  const segment = Segment.build(new Map(job.spaces), job.points, job.fieldIndexes);
  try {
    return segment.save();
  } finally {
    segment.dispose();
  }
}
