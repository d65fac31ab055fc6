import { SlotMap } from './slot-map';

/** Where a space's original vectors are in the segment's vector file. */
export interface DiskVectorsLayout {
  file: string;
  /** Byte offset of engine slot 0's row. */
  offset: number;
  rowBytes: number;
  /** True when the int8 codes the graph is walked on were added for the disk (the collection configures no quantization). */
  internalQuantization: boolean;
}

/** What a dense store saves into the segment body (v8-serialized). */
export interface SavedDenseVectors {
  slots: ReturnType<SlotMap['toJSON']>;
  index: Uint8Array;
  indexed: boolean;
  /** Present when the original vectors are in the segment's vector file. */
  disk?: DiskVectorsLayout;
}
