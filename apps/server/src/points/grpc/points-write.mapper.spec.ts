import type { UpdateOperation } from '@vectorstore/points';
import type { ClearPayloadPoints__Output } from '../../grpc/generated/vectorstore/ClearPayloadPoints';
import type { CreateFieldIndexCollection__Output } from '../../grpc/generated/vectorstore/CreateFieldIndexCollection';
import type { DeleteFieldIndexCollection__Output } from '../../grpc/generated/vectorstore/DeleteFieldIndexCollection';
import type { DeletePayloadPoints__Output } from '../../grpc/generated/vectorstore/DeletePayloadPoints';
import type { DeletePointVectors__Output } from '../../grpc/generated/vectorstore/DeletePointVectors';
import type { DeletePoints__Output } from '../../grpc/generated/vectorstore/DeletePoints';
import type { SetPayloadPoints__Output } from '../../grpc/generated/vectorstore/SetPayloadPoints';
import type { UpdateBatchPoints__Output } from '../../grpc/generated/vectorstore/UpdateBatchPoints';
import type { UpdatePointVectors__Output } from '../../grpc/generated/vectorstore/UpdatePointVectors';
import type { UpsertPoints__Output } from '../../grpc/generated/vectorstore/UpsertPoints';
import {
  clearPayloadFromProto,
  createFieldIndexFromProto,
  deleteFieldIndexFromProto,
  deletePayloadFromProto,
  deletePointsFromProto,
  deletePointVectorsFromProto,
  overwritePayloadFromProto,
  setPayloadFromProto,
  updateBatchFromProto,
  updatePointVectorsFromProto,
  upsertPointsFromProto,
} from './points-write.mapper';
import { f32, issuesOf, wireRequest } from './points-wire.spec-helper';

const ids = { points: { ids: [{ num: 1 }, { uuid: '550e8400-e29b-41d4-a716-446655440000' }] } };
const mappedIds = { ids: [1n, '550e8400-e29b-41d4-a716-446655440000'] };
const byFilter = { filter: { must: [{ isEmpty: { key: 'x' } }] } };

describe('upsertPointsFromProto', () => {
  it('should map points, payload (integers as bigint), wait, timeout, shard keys and options', () => {
    const request = wireRequest<UpsertPoints__Output>('Upsert', {
      collectionName: 'c',
      wait: true,
      timeout: 30,
      points: [
        {
          id: { num: '9007199254740993' },
          vectors: { vector: { dense: { data: [1, 2] } } },
          payload: { n: { integerValue: '9007199254740993' }, s: { stringValue: 'x' } },
        },
      ],
      shardKeySelector: { shardKeys: [{ keyword: 'tenant' }, { number: 7 }], fallback: { keyword: 'default' } },
      updateFilter: { must: [{ hasVector: { hasVector: '' } }] },
      updateMode: 'InsertOnly',
      ordering: { type: 'Strong' },
    });
    expect(upsertPointsFromProto(request)).toEqual({
      collectionName: 'c',
      request: {
        wait: true,
        ordering: 'Strong',
        timeout: 30,
        shardKeySelector: { shardKeys: [{ keyword: 'tenant' }, { number: '7' }], fallback: { keyword: 'default' } },
        operation: {
          upsert: {
            points: [
              {
                id: 9007199254740993n,
                vectors: { '': { kind: 'dense', values: f32(1, 2) } },
                payload: { n: 9007199254740993n, s: 'x' },
              },
            ],
            updateFilter: { must: [{ hasVector: '' }] },
            updateMode: 'InsertOnly',
          },
        },
      },
    });
  });

  it('should default wait to false and leave timeout / shard keys absent', () => {
    const { request } = upsertPointsFromProto(wireRequest('Upsert', { collectionName: 'c', points: [] }));
    expect(request).toEqual({ wait: false, operation: { upsert: { points: [] } } });
  });

  it('should report missing ids and vectors and bad payload numbers with paths', () => {
    const request = wireRequest<UpsertPoints__Output>('Upsert', {
      collectionName: 'c',
      points: [{ vectors: { vector: { data: [1] } } }, { id: { num: 2 }, payload: { p: { doubleValue: NaN } } }],
    });
    expect(issuesOf(() => upsertPointsFromProto(request))).toEqual([
      'points[0].id: must set num or uuid',
      'points[1].vectors: Expected some vectors',
      'points[1].payload.p: must be a finite number',
    ]);
  });
});

describe('single write RPCs', () => {
  it('should map Delete by ids and by filter, and report a missing selector', () => {
    expect(
      deletePointsFromProto(wireRequest<DeletePoints__Output>('Delete', { collectionName: 'c', points: ids })).request
        .operation,
    ).toEqual({
      deletePoints: { selector: mappedIds },
    });
    expect(
      deletePointsFromProto(wireRequest<DeletePoints__Output>('Delete', { collectionName: 'c', points: byFilter }))
        .request.operation,
    ).toEqual({
      deletePoints: { selector: { filter: { must: [{ isEmpty: { key: 'x' } }] } } },
    });
    expect(issuesOf(() => deletePointsFromProto(wireRequest('Delete', { collectionName: 'c' })))).toEqual([
      'points: must be set',
    ]);
    expect(issuesOf(() => deletePointsFromProto(wireRequest('Delete', { collectionName: 'c', points: {} })))).toEqual([
      'points: must set points or filter',
    ]);
  });

  it('should map UpdateVectors', () => {
    const request = wireRequest<UpdatePointVectors__Output>('UpdateVectors', {
      collectionName: 'c',
      points: [{ id: { num: 3 }, vectors: { vectors: { vectors: { img: { dense: { data: [0.5] } } } } } }],
      updateFilter: byFilter.filter,
    });
    expect(updatePointVectorsFromProto(request).request.operation).toEqual({
      updateVectors: {
        points: [{ id: 3n, vectors: { img: { kind: 'dense', values: f32(0.5) } } }],
        updateFilter: { must: [{ isEmpty: { key: 'x' } }] },
      },
    });
  });

  it('should map DeleteVectors and require vector names', () => {
    const request = wireRequest<DeletePointVectors__Output>('DeleteVectors', {
      collectionName: 'c',
      pointsSelector: ids,
      vectors: { names: ['a', 'b'] },
    });
    expect(deletePointVectorsFromProto(request).request.operation).toEqual({
      deleteVectors: { selector: mappedIds, vectorNames: ['a', 'b'] },
    });
    expect(
      issuesOf(() =>
        deletePointVectorsFromProto(
          wireRequest('DeleteVectors', { collectionName: 'c', vectors: { names: [] }, pointsSelector: ids }),
        ),
      ),
    ).toEqual(['vectors.names: must specify vector names to delete']);
    expect(issuesOf(() => deletePointVectorsFromProto(wireRequest('DeleteVectors', { collectionName: 'c' })))).toEqual([
      'points_selector: must be set',
      'vectors: must be set',
    ]);
  });

  it('should map SetPayload and OverwritePayload from the same message, with the nested key', () => {
    const request = wireRequest<SetPayloadPoints__Output>('SetPayload', {
      collectionName: 'c',
      payload: { a: { listValue: { values: [{ integerValue: '1' }, { nullValue: 'NULL_VALUE' }] } } },
      pointsSelector: ids,
      key: 'nested.obj',
      wait: true,
    });
    expect(setPayloadFromProto(request).request).toEqual({
      wait: true,
      operation: { setPayload: { selector: mappedIds, payload: { a: [1n, null] }, key: 'nested.obj' } },
    });
    expect(overwritePayloadFromProto(request).request.operation).toEqual({
      overwritePayload: { selector: mappedIds, payload: { a: [1n, null] }, key: 'nested.obj' },
    });
    expect(
      issuesOf(() => setPayloadFromProto(wireRequest('SetPayload', { collectionName: 'c', payload: {} }))),
    ).toEqual(['points_selector: must be set']);
  });

  it('should map DeletePayload and ClearPayload', () => {
    const del = wireRequest<DeletePayloadPoints__Output>('DeletePayload', {
      collectionName: 'c',
      keys: ['a', 'b.c'],
      pointsSelector: byFilter,
    });
    expect(deletePayloadFromProto(del).request.operation).toEqual({
      deletePayload: { selector: { filter: { must: [{ isEmpty: { key: 'x' } }] } }, keys: ['a', 'b.c'] },
    });
    const clear = wireRequest<ClearPayloadPoints__Output>('ClearPayload', { collectionName: 'c', points: ids });
    expect(clearPayloadFromProto(clear).request.operation).toEqual({ clearPayload: { selector: mappedIds } });
  });

  it('should map CreateFieldIndex with a type, with params only, and report conflicts', () => {
    const typed = wireRequest<CreateFieldIndexCollection__Output>('CreateFieldIndex', {
      collectionName: 'c',
      fieldName: 'f',
      fieldType: 'FieldTypeKeyword',
    });
    expect(createFieldIndexFromProto(typed).request.operation).toEqual({
      createFieldIndex: { field: 'f', type: 'Keyword' },
    });
    const zero = wireRequest<CreateFieldIndexCollection__Output>('CreateFieldIndex', {
      collectionName: 'c',
      fieldName: 'f',
      fieldType: 0,
    });
    expect(createFieldIndexFromProto(zero).request.operation).toEqual({
      createFieldIndex: { field: 'f', type: 'Keyword' },
    });
    const inferred = wireRequest<CreateFieldIndexCollection__Output>('CreateFieldIndex', {
      collectionName: 'c',
      fieldName: 't',
      fieldIndexParams: { textIndexParams: { tokenizer: 'Word', lowercase: true } },
    });
    expect(createFieldIndexFromProto(inferred).request.operation).toEqual({
      createFieldIndex: { field: 't', type: 'Text', params: { text: { tokenizer: 'Word', lowercase: true } } },
    });
    for (const [fieldType, type] of [
      ['FieldTypeInteger', 'Integer'],
      ['FieldTypeFloat', 'Float'],
      ['FieldTypeGeo', 'Geo'],
      ['FieldTypeText', 'Text'],
      ['FieldTypeBool', 'Bool'],
      ['FieldTypeDatetime', 'Datetime'],
      ['FieldTypeUuid', 'Uuid'],
    ]) {
      const op = createFieldIndexFromProto(
        wireRequest('CreateFieldIndex', { collectionName: 'c', fieldName: 'f', fieldType }),
      ).request.operation;
      expect(op).toEqual({ createFieldIndex: { field: 'f', type } });
    }
    expect(
      issuesOf(() =>
        createFieldIndexFromProto(wireRequest('CreateFieldIndex', { collectionName: 'c', fieldName: 'f' })),
      ),
    ).toEqual(['field_type: must be set when field_index_params is absent']);
    const conflict = wireRequest<CreateFieldIndexCollection__Output>('CreateFieldIndex', {
      collectionName: 'c',
      fieldName: 'f',
      fieldType: 'FieldTypeInteger',
      fieldIndexParams: { keywordIndexParams: { isTenant: true } },
    });
    expect(issuesOf(() => createFieldIndexFromProto(conflict))).toEqual([
      'field_index_params: keyword params do not match field_type Integer',
    ]);
    // The domain's schema rules apply on gRPC as on REST: an integer index keeps lookups or ranges.
    const neither = wireRequest<CreateFieldIndexCollection__Output>('CreateFieldIndex', {
      collectionName: 'c',
      fieldName: 'f',
      fieldType: 'FieldTypeInteger',
      fieldIndexParams: { integerIndexParams: { lookup: false, range: false } },
    });
    expect(issuesOf(() => createFieldIndexFromProto(neither))).toEqual([
      expect.stringContaining("the 'lookup' and 'range' capabilities can't be both disabled"),
    ]);
  });

  it('should map DeleteFieldIndex', () => {
    const request = wireRequest<DeleteFieldIndexCollection__Output>('DeleteFieldIndex', {
      collectionName: 'c',
      fieldName: 'f',
      wait: true,
      timeout: 5,
    });
    expect(deleteFieldIndexFromProto(request)).toEqual({
      collectionName: 'c',
      request: { wait: true, timeout: 5, operation: { deleteFieldIndex: { field: 'f' } } },
    });
  });
});

describe('updateBatchFromProto', () => {
  it('should map every operation case, including the deprecated ones', () => {
    const request = wireRequest<UpdateBatchPoints__Output>('UpdateBatch', {
      collectionName: 'c',
      wait: true,
      timeout: 3,
      operations: [
        {
          upsert: {
            points: [{ id: { num: 1 }, vectors: { vector: { data: [1] } } }],
            shardKeySelector: { shardKeys: [{ keyword: 'k' }] },
            updateMode: 'UpdateOnly',
          },
        },
        { deleteDeprecated: ids },
        { setPayload: { payload: { a: { boolValue: true } }, pointsSelector: ids, key: 'k' } },
        { overwritePayload: { payload: {}, pointsSelector: byFilter } },
        { deletePayload: { keys: ['a'], pointsSelector: ids } },
        { clearPayloadDeprecated: ids },
        { updateVectors: { points: [{ id: { num: 1 }, vectors: { vector: { data: [2] } } }] } },
        { deleteVectors: { pointsSelector: ids, vectors: { names: ['v'] } } },
        { deletePoints: { points: ids, shardKeySelector: { shardKeys: [{ number: 3 }] } } },
        { clearPayload: { points: ids } },
      ],
    });
    const filter = { filter: { must: [{ isEmpty: { key: 'x' } }] } };
    const expected: UpdateOperation[] = [
      {
        upsert: {
          points: [{ id: 1n, vectors: { '': { kind: 'dense', values: f32(1) } }, payload: {} }],
          updateMode: 'UpdateOnly',
        },
      },
      { deletePoints: { selector: mappedIds } },
      { setPayload: { selector: mappedIds, payload: { a: true }, key: 'k' } },
      { overwritePayload: { selector: filter, payload: {} } },
      { deletePayload: { selector: mappedIds, keys: ['a'] } },
      { clearPayload: { selector: mappedIds } },
      { updateVectors: { points: [{ id: 1n, vectors: { '': { kind: 'dense', values: f32(2) } } }] } },
      { deleteVectors: { selector: mappedIds, vectorNames: ['v'] } },
      { deletePoints: { selector: mappedIds } },
      { clearPayload: { selector: mappedIds } },
    ];
    const mapped = updateBatchFromProto(request);
    expect(mapped.operations).toEqual(expected);
    expect(mapped.shardKeySelectors).toEqual([
      { shardKeys: [{ keyword: 'k' }] },
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      { shardKeys: [{ number: '3' }] },
      undefined,
    ]);
    expect(mapped).toMatchObject({ collectionName: 'c', wait: true, timeout: 3 });
  });

  it('should report empty operations and nested problems with indexed paths', () => {
    const request = wireRequest<UpdateBatchPoints__Output>('UpdateBatch', {
      collectionName: 'c',
      operations: [
        {},
        { upsert: { points: [{ id: { uuid: 'x' }, vectors: { vector: { data: [1] } } }] } },
        { deletePoints: {} },
        { setPayload: { payload: {} } },
      ],
    });
    expect(issuesOf(() => updateBatchFromProto(request))).toEqual([
      'operations[0]: must set an operation',
      'operations[1].upsert.points[0].id.uuid: Unable to parse UUID: x',
      'operations[2].delete_points.points: must be set',
      'operations[3].set_payload.points_selector: must be set',
    ]);
  });

  it('should default wait to false', () => {
    expect(updateBatchFromProto(wireRequest('UpdateBatch', { collectionName: 'c' }))).toEqual({
      collectionName: 'c',
      operations: [],
      shardKeySelectors: [],
      wait: false,
    });
  });
});
