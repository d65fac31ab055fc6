import { JsonObject, ValidationIssues } from '@vectorstore/common';
import type {
  NamedVectors,
  PointId,
  PointStruct,
  ShardKeySelector,
  UpdateMode,
  UpdateOperation,
  UpdateRequest,
  WriteOrdering,
  UpdateResult,
} from '@vectorstore/points';
import { array, decodeBody, enumOf, isPlainObject, jsonObject, objectValue, str } from '../../core/rest/rest-decoders';
import { bodyFormatError, queryFormatError } from '../../core/rest/rest-format.error';
import { readUintParam, readWait, RestQuery } from '../../core/rest/rest-query';
import { defined } from '../../core/scalars';
import { optionalFilter } from './filter.rest-mapper';
import { pointIdDecoder, pointIdsDecoder } from './point-id.rest-mapper';
import { aliased, requiredPointsSelector, shardKeySelectorFromRest } from './selectors.rest-mapper';
import { batchVectorsFromRest, namedVectorsFromRest } from './vectors.rest-mapper';

/**
 * Point writes in Qdrant's JSON (`update_api.rs`) to domain operations. `?wait`, `?timeout` and
 * `?ordering` travel in the query string; `ordering` is accepted and ignored (single node).
 */

export interface RestWrite {
  operation: UpdateOperation;
  shardKeySelector?: ShardKeySelector;
}

type Body = Record<string, unknown>;

const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

const UPDATE_MODES = enumOf<UpdateMode>({ upsert: 'Upsert', insert_only: 'InsertOnly', update_only: 'UpdateOnly' });
const ORDERINGS = ['weak', 'medium', 'strong'];

function payloadOf(value: unknown, path: string): JsonObject {
  return value === undefined || value === null ? {} : jsonObject(value, path);
}

function pointStruct(issues: ValidationIssues, value: unknown, path: string): PointStruct {
  const p = objectValue(value, path);
  if (p.id === undefined || p.id === null) throw bodyFormatError(path, 'missing field `id`');
  const id = pointIdDecoder(p.id, join(path, 'id'));
  const vector = aliased(p, 'vector', 'vectors');
  if (vector === undefined) throw bodyFormatError(path, 'missing field `vector`');
  return {
    id,
    vectors: namedVectorsFromRest(issues, vector, join(path, 'vector')),
    payload: payloadOf(p.payload, join(path, 'payload')),
  };
}

/** `{"batch": {ids, vectors, payloads?}}`: columns turned into points. */
function batchPoints(issues: ValidationIssues, value: unknown, path: string): PointStruct[] {
  const b = objectValue(value, path);
  if (b.ids === undefined) throw bodyFormatError(path, 'missing field `ids`');
  if (b.vectors === undefined) throw bodyFormatError(path, 'missing field `vectors`');
  const ids = pointIdsDecoder(b.ids, join(path, 'ids'));
  const vectors = batchVectorsFromRest(issues, b.vectors, join(path, 'vectors'), ids.length);
  let payloads: JsonObject[] = ids.map(() => ({}));
  if (b.payloads !== undefined && b.payloads !== null) {
    if (!Array.isArray(b.payloads)) throw bodyFormatError(join(path, 'payloads'), 'expected a sequence');
    if (b.payloads.length !== ids.length) {
      issues.add(
        join(path, 'payloads'),
        `number of payloads (${b.payloads.length}) must match the number of ids (${ids.length})`,
      );
    } else payloads = b.payloads.map((p, i) => payloadOf(p, `${join(path, 'payloads')}[${i}]`));
  }
  return ids.map((id, i) => ({ id, vectors: vectors[i], payload: payloads[i] }));
}

/** PUT /points (and the batch `upsert`): `points` or `batch`, plus `update_filter` and `update_mode`. */
function upsertOp(issues: ValidationIssues, b: Body, path: string): UpdateOperation {
  let points: PointStruct[];
  if (b.batch !== undefined && b.batch !== null) points = batchPoints(issues, b.batch, join(path, 'batch'));
  else if (b.points !== undefined && b.points !== null) {
    if (!Array.isArray(b.points)) throw bodyFormatError(join(path, 'points'), 'expected a sequence');
    points = b.points.map((p, i) => pointStruct(issues, p, `${join(path, 'points')}[${i}]`));
  } else throw bodyFormatError(path, 'Invalid PointInsertOperations format');
  return {
    upsert: defined({
      points,
      updateFilter: optionalFilter(b.update_filter, join(path, 'update_filter')),
      updateMode:
        b.update_mode === undefined || b.update_mode === null
          ? undefined
          : UPDATE_MODES(b.update_mode, join(path, 'update_mode')),
    }),
  };
}

function updateVectorsOp(issues: ValidationIssues, b: Body, path: string): UpdateOperation {
  if (b.points === undefined) throw bodyFormatError(path, 'missing field `points`');
  const list = array((v) => v)(b.points, join(path, 'points'));
  if (list.length === 0) issues.add(join(path, 'points'), 'must contain at least 1 item');
  const points: Array<{ id: PointId; vectors: NamedVectors }> = list.map((item, i) => {
    const itemPath = `${join(path, 'points')}[${i}]`;
    const p = objectValue(item, itemPath);
    if (p.id === undefined || p.id === null) throw bodyFormatError(itemPath, 'missing field `id`');
    const vector = aliased(p, 'vector', 'vectors');
    if (vector === undefined) throw bodyFormatError(itemPath, 'missing field `vector`');
    return {
      id: pointIdDecoder(p.id, join(itemPath, 'id')),
      vectors: namedVectorsFromRest(issues, vector, join(itemPath, 'vector')),
    };
  });
  return {
    updateVectors: defined({ points, updateFilter: optionalFilter(b.update_filter, join(path, 'update_filter')) }),
  };
}

function deleteVectorsOp(issues: ValidationIssues, b: Body, path: string): UpdateOperation {
  if (b.vector === undefined) throw bodyFormatError(path, 'missing field `vector`');
  const vectorNames = array(str)(b.vector, join(path, 'vector'));
  if (vectorNames.length === 0) issues.add(join(path, 'vector'), 'must contain at least 1 item');
  return { deleteVectors: { selector: requiredPointsSelector(b, path), vectorNames } };
}

function setPayloadOp(b: Body, path: string, overwrite: boolean): UpdateOperation {
  if (b.payload === undefined) throw bodyFormatError(path, 'missing field `payload`');
  const payload = jsonObject(b.payload, join(path, 'payload'));
  const key = b.key === undefined || b.key === null ? undefined : str(b.key, join(path, 'key'));
  const op = defined({ selector: requiredPointsSelector(b, path), payload, key });
  return overwrite ? { overwritePayload: op } : { setPayload: op };
}

function deletePayloadOp(b: Body, path: string): UpdateOperation {
  if (b.keys === undefined) throw bodyFormatError(path, 'missing field `keys`');
  return { deletePayload: { keys: array(str)(b.keys, join(path, 'keys')), selector: requiredPointsSelector(b, path) } };
}

/** The operation kinds of `POST /points/batch`, each with the body of its own endpoint. */
const OPERATIONS: Record<string, (issues: ValidationIssues, b: Body, path: string) => UpdateOperation> = {
  upsert: upsertOp,
  delete: (_, b, path) => ({ deletePoints: { selector: requiredPointsSelector(b, path) } }),
  set_payload: (_, b, path) => setPayloadOp(b, path, false),
  overwrite_payload: (_, b, path) => setPayloadOp(b, path, true),
  delete_payload: (_, b, path) => deletePayloadOp(b, path),
  clear_payload: (_, b, path) => ({ clearPayload: { selector: requiredPointsSelector(b, path) } }),
  update_vectors: updateVectorsOp,
  delete_vectors: deleteVectorsOp,
};

export type WriteKind = keyof typeof OPERATIONS;

function decodeWrite(issues: ValidationIssues, kind: string, value: unknown, path: string): RestWrite {
  const b = objectValue(value, path);
  return defined({
    operation: OPERATIONS[kind](issues, b, path),
    shardKeySelector: shardKeySelectorFromRest(b.shard_key, join(path, 'shard_key')),
  });
}

/** `?wait&timeout&ordering` of a point write. */
export function writeOptionsFromRest(query: RestQuery): { wait: boolean; ordering?: WriteOrdering; timeout?: number } {
  const ordering = query.ordering;
  if (ordering !== undefined && !(typeof ordering === 'string' && ORDERINGS.includes(ordering))) {
    throw queryFormatError(
      'ordering',
      `unknown variant \`${String(ordering)}\`, expected one of \`weak\`, \`medium\`, \`strong\``,
    );
  }
  // Weak, the default, is left out.
  const strength = ordering === 'medium' ? 'Medium' : ordering === 'strong' ? 'Strong' : undefined;
  return defined({ wait: readWait(query), ordering: strength, timeout: readUintParam(query, 'timeout') });
}

/** One of the single-operation write endpoints. */
export function writeFromRest(kind: WriteKind, body: unknown, query: RestQuery): UpdateRequest {
  const options = writeOptionsFromRest(query);
  const issues = new ValidationIssues();
  const write = decodeBody(body, (value, path) => decodeWrite(issues, kind, value, path));
  issues.throwIfAny();
  return defined({ ...options, operation: write.operation, shardKeySelector: write.shardKeySelector });
}

/** `POST /points/batch`: `{"operations": [{<kind>: body}]}`. */
export function batchFromRest(
  body: unknown,
  query: RestQuery,
): { writes: RestWrite[]; wait: boolean; ordering?: WriteOrdering; timeout?: number } {
  const options = writeOptionsFromRest(query);
  const issues = new ValidationIssues();
  const writes = decodeBody(body, (value) => {
    const b = objectValue(value, '');
    if (b.operations === undefined) throw bodyFormatError('', 'missing field `operations`');
    return array((item, path) => {
      if (!isPlainObject(item)) throw bodyFormatError(path, 'expected a map');
      const kinds = Object.keys(item);
      const kind = kinds[0];
      if (kinds.length !== 1 || !(kind in OPERATIONS)) {
        throw bodyFormatError(
          path,
          `unknown variant \`${kind ?? ''}\`, expected one of ${Object.keys(OPERATIONS)
            .map((k) => `\`${k}\``)
            .join(', ')}`,
        );
      }
      return decodeWrite(issues, kind, item[kind], `${path}.${kind}`);
    })(b.operations, 'operations');
  });
  issues.throwIfAny();
  return { ...options, writes };
}

const STATUS_NAMES = { Acknowledged: 'acknowledged', Completed: 'completed', WaitTimeout: 'wait_timeout' } as const;

/** `UpdateResult` as REST shows it. */
export function updateResultToRest(result: UpdateResult): { operation_id: number; status: string } {
  return { operation_id: result.operationId, status: STATUS_NAMES[result.status] };
}
