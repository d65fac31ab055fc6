import { CollectionParams } from '../model/collection.model';
import { Memory } from '../model/index-config.model';
import { VectorParams } from '../model/vectors.model';

/*
 * How storage reads Qdrant 1.19's `memory` placements. An explicit `memory` wins over the older
 * flag it replaces, as in Qdrant; where storage has no such choice the placement is only recorded.
 */

/** Original dense vectors stay in the segment's file (`Cold`), or are held in memory (`Cached`). */
export function vectorsOnDisk(params: Pick<VectorParams, 'onDisk' | 'memory'>): boolean {
  return params.memory !== undefined ? params.memory === 'Cold' : params.onDisk === true;
}

/** Payloads of optimized segments stay on disk (`Cold`), or are held in memory (`Cached`). */
export function payloadsOnDisk(params: Pick<CollectionParams, 'onDiskPayload' | 'payload'>): boolean {
  const memory = params.payload?.memory;
  return memory !== undefined ? memory === 'Cold' : params.onDiskPayload;
}

/** Quantized vectors kept in memory whatever the originals do: `Pinned`, or the older `always_ram`. */
export function quantizedAlwaysInMemory(quantization: { alwaysRam?: boolean; memory?: Memory }): boolean | undefined {
  return quantization.memory !== undefined ? quantization.memory === 'Pinned' : quantization.alwaysRam;
}
