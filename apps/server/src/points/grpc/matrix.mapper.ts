import { ValidationIssues } from '@vectorstore/common';
import {
  DistanceMatrix,
  DistanceMatrixRequest,
  MATRIX_DEFAULT_LIMIT,
  MATRIX_DEFAULT_SAMPLE,
} from '@vectorstore/points';
import type { SearchMatrixOffsetsResponse } from '../../grpc/generated/vectorstore/SearchMatrixOffsetsResponse';
import type { SearchMatrixPairsResponse } from '../../grpc/generated/vectorstore/SearchMatrixPairsResponse';
import type { SearchMatrixPoints__Output } from '../../grpc/generated/vectorstore/SearchMatrixPoints';
import { defined, readU64 } from '../../core/scalars';
import { filterFromProto } from './filter.mapper';
import { readLimit } from './params.mapper';
import { readConsistencyFromProto } from './read-consistency.mapper';
import { pointIdToProto } from './point-id.mapper';
import type { PointsReadMapping } from './points-read.mapper';
import { shardKeySelectorFromProto } from './selectors.mapper';

/**
 * SearchMatrixPoints (both matrix RPCs): `sample` defaults to 10 and must be at least 2, `limit`
 * defaults to 3 and must be at least 1 (Qdrant's rules); `using` defaults to the unnamed vector.
 * `read_consistency` applies in cluster mode, as on every read.
 */
export function searchMatrixFromProto(r: SearchMatrixPoints__Output): PointsReadMapping<DistanceMatrixRequest> {
  const issues = new ValidationIssues();
  const sample = readU64(issues, 'sample', r.sample);
  issues.range('sample', sample, 2);
  const request: DistanceMatrixRequest = defined({
    filter: filterFromProto(issues, 'filter', r.filter),
    sample: sample ?? MATRIX_DEFAULT_SAMPLE,
    limit: readLimit(issues, 'limit', r.limit, MATRIX_DEFAULT_LIMIT),
    using: r.using ?? '',
    shardKeySelector: shardKeySelectorFromProto(issues, 'shard_key_selector', r.shardKeySelector),
    timeout: readU64(issues, 'timeout', r.timeout),
    readConsistency: readConsistencyFromProto(issues, 'read_consistency', r.readConsistency),
  });
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request };
}

/** SearchMatrixPairs: one (a, b, score) per neighbour, rows in point-id order, each best first. */
export function matrixPairsToProto(matrix: DistanceMatrix): SearchMatrixPairsResponse {
  const pairs = matrix.neighbours.flatMap((row, i) =>
    row.map((n) => ({ a: pointIdToProto(matrix.ids[i]), b: pointIdToProto(matrix.ids[n.offset]), score: n.score })),
  );
  return { result: { pairs } };
}

/** SearchMatrixOffsets: the same matrix in coordinate form, offsets into `ids`. */
export function matrixOffsetsToProto(matrix: DistanceMatrix): SearchMatrixOffsetsResponse {
  const offsetsRow: number[] = [];
  const offsetsCol: number[] = [];
  const scores: number[] = [];
  matrix.neighbours.forEach((row, i) => {
    for (const n of row) {
      offsetsRow.push(i);
      offsetsCol.push(n.offset);
      scores.push(n.score);
    }
  });
  return { result: { offsetsRow, offsetsCol, scores, ids: matrix.ids.map(pointIdToProto) } };
}
