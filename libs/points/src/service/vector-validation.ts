import { DomainError, setOwn, ValidationIssues } from '@vectorstore/common';
import { UpdateOperation } from '../model/operations.model';
import { MAX_MULTIVECTOR_FLOATS } from '../model/vector-rules';
import { NamedVectors, Vector } from '../model/vectors.model';
import { VectorSpace } from '../storage/vector-space';

function label(name: string): string {
  return name === '' ? 'default vector' : `vector \`${name}\``;
}

/**
 * Checks vectors against the collection's spaces: names exist, kinds and dimensions match, values
 * are finite. Problems are reported with the path prefix, in Qdrant's wording for dimensions.
 */
export function checkNamedVectors(
  issues: ValidationIssues,
  path: string,
  spaces: Map<string, VectorSpace>,
  vectors: NamedVectors,
): void {
  for (const [name, vector] of Object.entries(vectors)) {
    const space = spaces.get(name);
    const vectorPath = name === '' ? `${path}.vector` : `${path}.vectors.${name}`;
    if (!space) {
      issues.add(vectorPath, `Wrong input: Not existing vector name error: ${name === '' ? '(default vector)' : name}`);
      continue;
    }
    checkVector(issues, vectorPath, space, vector);
  }
}

/** Checks one vector against its space. */
export function checkVector(issues: ValidationIssues, path: string, space: VectorSpace, vector: Vector): void {
  const expected = space.kind;
  if (vector.kind !== expected) {
    issues.add(path, `Wrong input: ${label(space.name)} expects a ${expected} vector, got a ${vector.kind} vector`);
    return;
  }
  if (vector.kind === 'dense' && space.kind === 'dense') {
    if (vector.values.length !== space.dim) {
      issues.add(path, `Wrong input: Vector dimension error: expected dim: ${space.dim}, got ${vector.values.length}`);
    }
    checkFinite(issues, path, vector.values);
  } else if (vector.kind === 'multi' && space.kind === 'multi') {
    if (vector.vectors.length === 0) issues.add(path, 'multivector must hold at least one vector');
    let total = 0;
    vector.vectors.forEach((v, i) => {
      total += v.length;
      if (v.length !== space.dim)
        issues.add(`${path}[${i}]`, `Wrong input: Vector dimension error: expected dim: ${space.dim}, got ${v.length}`);
      checkFinite(issues, `${path}[${i}]`, v);
    });
    if (total >= MAX_MULTIVECTOR_FLOATS)
      issues.add(path, `multivector holds ${total} floats, must be fewer than ${MAX_MULTIVECTOR_FLOATS}`);
  } else if (vector.kind === 'sparse') {
    if (vector.indices.length !== vector.values.length) {
      issues.add(
        path,
        `indices and values must have the same length (${vector.indices.length} vs ${vector.values.length})`,
      );
    }
    const seen = new Set<number>();
    for (const index of vector.indices) {
      if (seen.has(index)) {
        issues.add(path, `Validation error: duplicate index ${index} in sparse vector`);
        break;
      }
      seen.add(index);
    }
    checkFinite(issues, path, vector.values);
  }
}

function checkFinite(issues: ValidationIssues, path: string, values: Float32Array): void {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) {
      issues.add(`${path}[${i}]`, 'must be a finite number');
      return;
    }
  }
}

/**
 * Throws what the checks above found. A vector that does not fit the collection (a dimension, a
 * kind, a vector name) is Qdrant's BadInput, answered with its own message (`Wrong input: Vector
 * dimension error: …`, REST 400), not a body validation (422); other issues are validations.
 */
export function throwVectorIssues(issues: ValidationIssues): void {
  const badInput = issues.list().find((issue) => issue.includes(': Wrong input: '));
  if (badInput) throw DomainError.invalidArgument(badInput.slice(badInput.indexOf('Wrong input: ')));
  issues.throwIfAny();
}

/** As Qdrant does, a dense vector given for a multivector field is a multivector of one row. */
export function asSpaceKind(space: VectorSpace | undefined, vector: Vector): Vector {
  return space?.kind === 'multi' && vector.kind === 'dense' ? { kind: 'multi', vectors: [vector.values] } : vector;
}

function fitNamed(vectors: NamedVectors, spaces: Map<string, VectorSpace>): NamedVectors {
  let changed = false;
  const fitted: NamedVectors = {};
  for (const [name, vector] of Object.entries(vectors)) {
    const fit = asSpaceKind(spaces.get(name), vector);
    changed ||= fit !== vector;
    setOwn(fitted, name, fit);
  }
  return changed ? fitted : vectors;
}

/** The operation with dense vectors for multivector fields made one-row multivectors (upserts and vector updates). */
export function fitVectorKinds(operation: UpdateOperation, spaces: Map<string, VectorSpace>): UpdateOperation {
  if ('upsert' in operation) {
    const points = operation.upsert.points.map((p) => ({ ...p, vectors: fitNamed(p.vectors, spaces) }));
    return { upsert: { ...operation.upsert, points } };
  }
  if ('updateVectors' in operation) {
    const points = operation.updateVectors.points.map((p) => ({ ...p, vectors: fitNamed(p.vectors, spaces) }));
    return { updateVectors: { ...operation.updateVectors, points } };
  }
  return operation;
}
