import { setOwn } from '@vectorstore/common';
import { turbo4RoundTrip } from '@vectorstore/engine';
import { UpdateOperation } from '../model/operations.model';
import { NamedVectors, Vector } from '../model/vectors.model';
import { VectorSpace } from '../storage/vector-space';

function normalized(values: Float32Array): Float32Array {
  let sum = 0;
  for (const x of values) sum += x * x;
  const norm = Math.sqrt(sum);
  return norm === 0 ? values : values.map((x) => x / norm);
}

/** A vector of a turbo4 space as it is stored: Cosine vectors normalized first, then 4-bit quantized (turbo4.ts). */
function turbo4Vector(space: VectorSpace, vector: Vector): Vector {
  if (space.kind === 'sparse' || !space.turbo4) return vector;
  const quantize = (values: Float32Array) => turbo4RoundTrip(space.distance === 'Cosine' ? normalized(values) : values);
  if (vector.kind === 'dense') return { kind: 'dense', values: quantize(vector.values) };
  if (vector.kind === 'multi') return { kind: 'multi', vectors: vector.vectors.map(quantize) };
  return vector;
}

function storedNamed(vectors: NamedVectors, spaces: Map<string, VectorSpace>): NamedVectors {
  const out: NamedVectors = {};
  for (const [name, vector] of Object.entries(vectors)) {
    const space = spaces.get(name);
    setOwn(out, name, space ? turbo4Vector(space, vector) : vector);
  }
  return out;
}

/**
 * The operation with the vectors of turbo4 spaces quantized, once, before it is logged: the log, the
 * segments and snapshots then hold exactly the values reads return, and rebuilds never quantize again.
 */
export function turbo4Stored(operation: UpdateOperation, spaces: Map<string, VectorSpace>): UpdateOperation {
  if (![...spaces.values()].some((space) => space.kind !== 'sparse' && space.turbo4)) return operation;
  if ('upsert' in operation) {
    const points = operation.upsert.points.map((p) => ({ ...p, vectors: storedNamed(p.vectors, spaces) }));
    return { upsert: { ...operation.upsert, points } };
  }
  if ('updateVectors' in operation) {
    const points = operation.updateVectors.points.map((p) => ({ ...p, vectors: storedNamed(p.vectors, spaces) }));
    return { updateVectors: { ...operation.updateVectors, points } };
  }
  return operation;
}
