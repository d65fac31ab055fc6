import { VectorIndex } from '@vectorstore/engine';
import { deserialize } from 'node:v8';
import { SegmentFile } from '../segment-file';
import { VectorSpace } from '../vector-space';
import { DenseSegmentVectors } from './dense-vectors';
import { DiskDenseSegmentVectors } from './disk-dense-vectors';
import { translatingEngineErrors } from './engine-input';
import { MultiSegmentVectors } from './multi-vectors';
import { SavedDenseVectors } from './saved-dense-vectors';
import { SegmentVectors } from './segment-vectors';
import { SlotMap } from './slot-map';
import { SparseSegmentVectors } from './sparse-vectors';

/*
 * Every store the library uses comes from these two functions, and each answers the engine's input
 * errors as DomainErrors (see translatingEngineErrors): the one place where points meets the engine.
 */

/** An empty store for a space; `indexed` stores build a full graph (optimizer-built segments). */
export function createSegmentVectors(space: VectorSpace, indexed: boolean): SegmentVectors {
  return translatingEngineErrors(newSegmentVectors(space, indexed));
}

/** Restores saved vectors; `openFile` opens the segment's files for vectors kept on disk. */
export function loadSegmentVectors(
  space: VectorSpace,
  bytes: Uint8Array,
  openFile?: (name: string) => SegmentFile,
): SegmentVectors {
  return translatingEngineErrors(loadedSegmentVectors(space, bytes, openFile));
}

function newSegmentVectors(space: VectorSpace, indexed: boolean): SegmentVectors {
  if (space.kind === 'sparse') return SparseSegmentVectors.create(space);
  if (space.kind === 'multi') return MultiSegmentVectors.create(space);
  return DenseSegmentVectors.create(space, indexed);
}

function loadedSegmentVectors(
  space: VectorSpace,
  bytes: Uint8Array,
  openFile?: (name: string) => SegmentFile,
): SegmentVectors {
  if (space.kind === 'sparse') return SparseSegmentVectors.load(space, bytes);
  if (space.kind === 'multi') return MultiSegmentVectors.load(space, bytes);
  return loadDenseVectors(space, bytes, openFile);
}

/** A saved dense store, in memory or over the segment's vector file, as it was saved. */
function loadDenseVectors(
  space: Extract<VectorSpace, { kind: 'dense' | 'multi' }>,
  bytes: Uint8Array,
  openFile?: (name: string) => SegmentFile,
): SegmentVectors {
  const state = deserialize(bytes) as SavedDenseVectors;
  const index = VectorIndex.load(state.index);
  if (state.disk) {
    if (!openFile)
      throw new Error(
        `vectors of \`${space.name}\` are in ${state.disk.file}, but no folder was given to open it from`,
      );
    return new DiskDenseSegmentVectors(space, index, SlotMap.from(state.slots), openFile(state.disk.file), state.disk);
  }
  return new DenseSegmentVectors(space, index, state.indexed, SlotMap.from(state.slots));
}
