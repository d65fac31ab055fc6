import { PayloadIndexParams, payloadIndexSchema, PayloadSchemaType } from '@vectorstore/collections';
import { DomainError, ValidationIssues } from '@vectorstore/common';
import type {
  NamedVectors,
  PointId,
  PointStruct,
  ShardKeySelector,
  UpdateMode,
  UpdateOperation,
  UpdateRequest,
  WriteOrdering,
} from '@vectorstore/points';
import type { WriteOrdering__Output } from '../../grpc/generated/vectorstore/WriteOrdering';
import type { ClearPayloadPoints__Output } from '../../grpc/generated/vectorstore/ClearPayloadPoints';
import type { CreateFieldIndexCollection__Output } from '../../grpc/generated/vectorstore/CreateFieldIndexCollection';
import type { DeleteFieldIndexCollection__Output } from '../../grpc/generated/vectorstore/DeleteFieldIndexCollection';
import type { DeletePayloadPoints__Output } from '../../grpc/generated/vectorstore/DeletePayloadPoints';
import type { DeletePointVectors__Output } from '../../grpc/generated/vectorstore/DeletePointVectors';
import type { DeletePoints__Output } from '../../grpc/generated/vectorstore/DeletePoints';
import type { Filter__Output } from '../../grpc/generated/vectorstore/Filter';
import type { PointStruct__Output } from '../../grpc/generated/vectorstore/PointStruct';
import type { PointVectors__Output } from '../../grpc/generated/vectorstore/PointVectors';
import type { PointsSelector__Output } from '../../grpc/generated/vectorstore/PointsSelector';
import type { PointsUpdateOperation__Output } from '../../grpc/generated/vectorstore/PointsUpdateOperation';
import type { SetPayloadPoints__Output } from '../../grpc/generated/vectorstore/SetPayloadPoints';
import type { ShardKeySelector__Output } from '../../grpc/generated/vectorstore/ShardKeySelector';
import type { UpdateBatchPoints__Output } from '../../grpc/generated/vectorstore/UpdateBatchPoints';
import type { UpdatePointVectors__Output } from '../../grpc/generated/vectorstore/UpdatePointVectors';
import type { UpsertPoints__Output } from '../../grpc/generated/vectorstore/UpsertPoints';
import type { Value__Output } from '../../grpc/generated/vectorstore/Value';
import type { VectorsSelector__Output } from '../../grpc/generated/vectorstore/VectorsSelector';
import { fromProtoStruct } from '../../core/grpc/json-value.mapper';
import { payloadIndexParamsFromProto } from '../../collections/grpc/payload-index.mapper';
import { defined, readU64 } from '../../core/scalars';
import { filterFromProto } from './filter.mapper';
import { readEnumOf } from './params.mapper';
import { pointIdFromProto } from './point-id.mapper';
import { pointsSelectorFromProto, shardKeySelectorFromProto } from './selectors.mapper';
import { vectorsFromProto } from './vectors.mapper';

/** A single write RPC mapped to the domain. `ordering` is accepted and ignored (single node). */
export interface PointsWriteMapping {
  collectionName: string;
  request: UpdateRequest;
}

/** UpdateBatch mapped to the domain; `shardKeySelectors[i]` is the selector of `operations[i]`, if any. */
export interface UpdateBatchMapping {
  collectionName: string;
  operations: UpdateOperation[];
  shardKeySelectors: Array<ShardKeySelector | undefined>;
  wait: boolean;
  ordering?: WriteOrdering;
  timeout?: number;
}

const UPDATE_MODES: readonly UpdateMode[] = ['Upsert', 'InsertOnly', 'UpdateOnly'];

/** `prefix.name`, or `name` at the top level of a request. */
const at = (prefix: string, name: string): string => (prefix ? `${prefix}.${name}` : name);

interface WriteEnvelope {
  collectionName?: string;
  wait?: boolean;
  ordering?: WriteOrdering__Output | null;
  timeout?: string;
  shardKeySelector?: ShardKeySelector__Output;
}

function finishWrite(
  issues: ValidationIssues,
  r: WriteEnvelope,
  operation: UpdateOperation | undefined,
): PointsWriteMapping {
  const timeout = readU64(issues, 'timeout', r.timeout);
  const shardKeySelector = shardKeySelectorFromProto(issues, 'shard_key_selector', r.shardKeySelector);
  issues.throwIfAny();
  if (!operation) throw DomainError.validation(['request: malformed operation']);
  return {
    collectionName: r.collectionName ?? '',
    request: defined({
      operation,
      wait: r.wait ?? false,
      ordering: orderingFromProto(r.ordering),
      timeout,
      shardKeySelector,
    }),
  };
}

// ---------------------------------------------------------------------------
// Operation builders shared by the single RPCs and UpdateBatch (`prefix` is '' or `operations[i].<case>`)
// ---------------------------------------------------------------------------

export function pointStructFromProto(
  issues: ValidationIssues,
  path: string,
  p: PointStruct__Output,
): PointStruct | undefined {
  const id = pointIdFromProto(issues, `${path}.id`, p.id);
  let vectors: NamedVectors | undefined;
  if (p.vectors) vectors = vectorsFromProto(issues, `${path}.vectors`, p.vectors);
  else issues.add(`${path}.vectors`, 'Expected some vectors');
  const payload = fromProtoStruct(issues, `${path}.payload`, p.payload ?? {});
  return id === undefined || vectors === undefined ? undefined : { id, vectors, payload };
}

function upsertOp(
  issues: ValidationIssues,
  prefix: string,
  r: { points?: PointStruct__Output[]; updateFilter?: Filter__Output; updateMode?: string },
): UpdateOperation {
  const points: PointStruct[] = [];
  (r.points ?? []).forEach((p, i) => {
    const point = pointStructFromProto(issues, `${at(prefix, 'points')}[${i}]`, p);
    if (point) points.push(point);
  });
  return {
    upsert: defined({
      points,
      updateFilter: filterFromProto(issues, at(prefix, 'update_filter'), r.updateFilter),
      updateMode: readEnumOf(issues, at(prefix, 'update_mode'), r.updateMode, UPDATE_MODES),
    }),
  };
}

function deletePointsOp(
  issues: ValidationIssues,
  path: string,
  selector: PointsSelector__Output | undefined,
): UpdateOperation | undefined {
  const mapped = pointsSelectorFromProto(issues, path, selector);
  return mapped && { deletePoints: { selector: mapped } };
}

function updateVectorsOp(
  issues: ValidationIssues,
  prefix: string,
  r: { points?: PointVectors__Output[]; updateFilter?: Filter__Output },
): UpdateOperation {
  const points: Array<{ id: PointId; vectors: NamedVectors }> = [];
  (r.points ?? []).forEach((p, i) => {
    const path = `${at(prefix, 'points')}[${i}]`;
    const id = pointIdFromProto(issues, `${path}.id`, p.id);
    const vectors = vectorsFromProto(issues, `${path}.vectors`, p.vectors);
    if (id !== undefined && vectors !== undefined) points.push({ id, vectors });
  });
  return {
    updateVectors: defined({
      points,
      updateFilter: filterFromProto(issues, at(prefix, 'update_filter'), r.updateFilter),
    }),
  };
}

function deleteVectorsOp(
  issues: ValidationIssues,
  prefix: string,
  selector: PointsSelector__Output | undefined,
  vectors: VectorsSelector__Output | undefined,
): UpdateOperation | undefined {
  const mapped = pointsSelectorFromProto(issues, at(prefix, 'points_selector'), selector);
  const vectorNames = [...(vectors?.names ?? [])];
  if (!vectors) issues.add(at(prefix, 'vectors'), 'must be set');
  else if (vectorNames.length === 0) issues.add(at(prefix, 'vectors.names'), 'must specify vector names to delete');
  return mapped && { deleteVectors: { selector: mapped, vectorNames } };
}

function setPayloadOp(
  issues: ValidationIssues,
  prefix: string,
  r: { payload?: Record<string, Value__Output>; pointsSelector?: PointsSelector__Output; key?: string },
  overwrite: boolean,
): UpdateOperation | undefined {
  const selector = pointsSelectorFromProto(issues, at(prefix, 'points_selector'), r.pointsSelector);
  const payload = fromProtoStruct(issues, at(prefix, 'payload'), r.payload ?? {});
  if (!selector) return undefined;
  const body = defined({ selector, payload, key: r.key });
  return overwrite ? { overwritePayload: body } : { setPayload: body };
}

function deletePayloadOp(
  issues: ValidationIssues,
  prefix: string,
  r: { keys?: string[]; pointsSelector?: PointsSelector__Output },
): UpdateOperation | undefined {
  const selector = pointsSelectorFromProto(issues, at(prefix, 'points_selector'), r.pointsSelector);
  return selector && { deletePayload: { selector, keys: [...(r.keys ?? [])] } };
}

function clearPayloadOp(
  issues: ValidationIssues,
  path: string,
  selector: PointsSelector__Output | undefined,
): UpdateOperation | undefined {
  const mapped = pointsSelectorFromProto(issues, path, selector);
  return mapped && { clearPayload: { selector: mapped } };
}

// ---------------------------------------------------------------------------
// Write RPCs
// ---------------------------------------------------------------------------

export function upsertPointsFromProto(r: UpsertPoints__Output): PointsWriteMapping {
  const issues = new ValidationIssues();
  return finishWrite(issues, r, upsertOp(issues, '', r));
}

export function deletePointsFromProto(r: DeletePoints__Output): PointsWriteMapping {
  const issues = new ValidationIssues();
  return finishWrite(issues, r, deletePointsOp(issues, 'points', r.points));
}

export function updatePointVectorsFromProto(r: UpdatePointVectors__Output): PointsWriteMapping {
  const issues = new ValidationIssues();
  return finishWrite(issues, r, updateVectorsOp(issues, '', r));
}

export function deletePointVectorsFromProto(r: DeletePointVectors__Output): PointsWriteMapping {
  const issues = new ValidationIssues();
  return finishWrite(issues, r, deleteVectorsOp(issues, '', r.pointsSelector, r.vectors));
}

/** SetPayload RPC: merges `payload` into the selected points (under `key` when given). */
export function setPayloadFromProto(r: SetPayloadPoints__Output): PointsWriteMapping {
  const issues = new ValidationIssues();
  return finishWrite(issues, r, setPayloadOp(issues, '', r, false));
}

/** OverwritePayload RPC: same request message, replaces the payload (or the object at `key`). */
export function overwritePayloadFromProto(r: SetPayloadPoints__Output): PointsWriteMapping {
  const issues = new ValidationIssues();
  return finishWrite(issues, r, setPayloadOp(issues, '', r, true));
}

export function deletePayloadFromProto(r: DeletePayloadPoints__Output): PointsWriteMapping {
  const issues = new ValidationIssues();
  return finishWrite(issues, r, deletePayloadOp(issues, '', r));
}

export function clearPayloadFromProto(r: ClearPayloadPoints__Output): PointsWriteMapping {
  const issues = new ValidationIssues();
  return finishWrite(issues, r, clearPayloadOp(issues, 'points', r.points));
}

const FIELD_TYPES: Record<string, PayloadSchemaType> = {
  FieldTypeKeyword: 'Keyword',
  FieldTypeInteger: 'Integer',
  FieldTypeFloat: 'Float',
  FieldTypeGeo: 'Geo',
  FieldTypeText: 'Text',
  FieldTypeBool: 'Bool',
  FieldTypeDatetime: 'Datetime',
  FieldTypeUuid: 'Uuid',
};

/** The schema type a set of index params implies (`{ text: … }` is Text, and so on). */
function typeOfParams(params: PayloadIndexParams): PayloadSchemaType {
  const kind = Object.keys(params)[0];
  return (kind.charAt(0).toUpperCase() + kind.slice(1)) as PayloadSchemaType;
}

/**
 * CreateFieldIndex: `field_type` (FieldType* names) is the schema type; when absent it is implied by
 * `field_index_params`, and with neither the request is reported. Params of another type are reported.
 */
export function createFieldIndexFromProto(r: CreateFieldIndexCollection__Output): PointsWriteMapping {
  const issues = new ValidationIssues();
  const params = r.fieldIndexParams
    ? payloadIndexParamsFromProto(issues, 'field_index_params', r.fieldIndexParams)
    : undefined;
  let type: PayloadSchemaType | undefined;
  if (r.fieldType !== undefined) {
    type = FIELD_TYPES[String(r.fieldType)];
    if (!type) issues.oneOf('field_type', String(r.fieldType), Object.keys(FIELD_TYPES));
  } else if (params) {
    type = typeOfParams(params);
  } else if (!r.fieldIndexParams) {
    issues.add('field_type', 'must be set when field_index_params is absent');
  }
  if (type && params && typeOfParams(params) !== type) {
    issues.add('field_index_params', `${typeOfParams(params).toLowerCase()} params do not match field_type ${type}`);
  }
  // The domain's rules for a schema (defaults, the integer index's lookup/range rule), as on REST.
  const schema = type && issues.empty ? payloadIndexSchema(type, params) : undefined;
  const operation: UpdateOperation | undefined = schema && {
    createFieldIndex: defined({ field: r.fieldName ?? '', type: schema.type, params: schema.params }),
  };
  return finishWrite(issues, r, operation);
}

export function deleteFieldIndexFromProto(r: DeleteFieldIndexCollection__Output): PointsWriteMapping {
  return finishWrite(new ValidationIssues(), r, { deleteFieldIndex: { field: r.fieldName ?? '' } });
}

// ---------------------------------------------------------------------------
// UpdateBatch
// ---------------------------------------------------------------------------

/** One PointsUpdateOperation (every oneof case, including the deprecated delete / clear_payload). */
export function updateOperationFromProto(
  issues: ValidationIssues,
  path: string,
  op: PointsUpdateOperation__Output,
): { operation?: UpdateOperation; shardKeySelector?: ShardKeySelector } {
  const selectorOf = (s: ShardKeySelector__Output | undefined, prefix: string): ShardKeySelector | undefined =>
    shardKeySelectorFromProto(issues, `${prefix}.shard_key_selector`, s);
  switch (op.operation) {
    case 'upsert': {
      const p = `${path}.upsert`;
      return {
        operation: upsertOp(issues, p, op.upsert ?? {}),
        shardKeySelector: selectorOf(op.upsert?.shardKeySelector, p),
      };
    }
    case 'deleteDeprecated':
      return { operation: deletePointsOp(issues, `${path}.delete_deprecated`, op.deleteDeprecated) };
    case 'deletePoints': {
      const p = `${path}.delete_points`;
      return {
        operation: deletePointsOp(issues, `${p}.points`, op.deletePoints?.points),
        shardKeySelector: selectorOf(op.deletePoints?.shardKeySelector, p),
      };
    }
    case 'setPayload':
    case 'overwritePayload': {
      const body = op.operation === 'setPayload' ? op.setPayload : op.overwritePayload;
      const p = `${path}.${op.operation === 'setPayload' ? 'set_payload' : 'overwrite_payload'}`;
      return {
        operation: setPayloadOp(issues, p, body ?? {}, op.operation === 'overwritePayload'),
        shardKeySelector: selectorOf(body?.shardKeySelector, p),
      };
    }
    case 'deletePayload': {
      const p = `${path}.delete_payload`;
      return {
        operation: deletePayloadOp(issues, p, op.deletePayload ?? {}),
        shardKeySelector: selectorOf(op.deletePayload?.shardKeySelector, p),
      };
    }
    case 'clearPayloadDeprecated':
      return { operation: clearPayloadOp(issues, `${path}.clear_payload_deprecated`, op.clearPayloadDeprecated) };
    case 'clearPayload': {
      const p = `${path}.clear_payload`;
      return {
        operation: clearPayloadOp(issues, `${p}.points`, op.clearPayload?.points),
        shardKeySelector: selectorOf(op.clearPayload?.shardKeySelector, p),
      };
    }
    case 'updateVectors': {
      const p = `${path}.update_vectors`;
      return {
        operation: updateVectorsOp(issues, p, op.updateVectors ?? {}),
        shardKeySelector: selectorOf(op.updateVectors?.shardKeySelector, p),
      };
    }
    case 'deleteVectors': {
      const p = `${path}.delete_vectors`;
      const body = op.deleteVectors;
      return {
        operation: deleteVectorsOp(issues, p, body?.pointsSelector, body?.vectors),
        shardKeySelector: selectorOf(body?.shardKeySelector, p),
      };
    }
    default:
      issues.add(path, 'must set an operation');
      return {};
  }
}

export function updateBatchFromProto(r: UpdateBatchPoints__Output): UpdateBatchMapping {
  const issues = new ValidationIssues();
  const operations: UpdateOperation[] = [];
  const shardKeySelectors: Array<ShardKeySelector | undefined> = [];
  (r.operations ?? []).forEach((op, i) => {
    const mapped = updateOperationFromProto(issues, `operations[${i}]`, op);
    if (mapped.operation) {
      operations.push(mapped.operation);
      shardKeySelectors.push(mapped.shardKeySelector);
    }
  });
  const timeout = readU64(issues, 'timeout', r.timeout);
  issues.throwIfAny();
  return defined({
    collectionName: r.collectionName ?? '',
    operations,
    shardKeySelectors,
    wait: r.wait ?? false,
    ordering: orderingFromProto(r.ordering),
    timeout,
  });
}

const ORDERINGS = { 0: 'Weak', 1: 'Medium', 2: 'Strong', Weak: 'Weak', Medium: 'Medium', Strong: 'Strong' } as const;

/** `ordering` of a write; Weak (the default) is left out. */
function orderingFromProto(ordering: WriteOrdering__Output | null | undefined): WriteOrdering | undefined {
  const type = ORDERINGS[(ordering?.type ?? 0) as keyof typeof ORDERINGS];
  return type === undefined || type === 'Weak' ? undefined : type;
}
