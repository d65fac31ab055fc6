import type { SearchMatrixOffsetsResponse__Output } from '../../grpc/generated/vectorstore/SearchMatrixOffsetsResponse';
import type { SearchMatrixPairsResponse__Output } from '../../grpc/generated/vectorstore/SearchMatrixPairsResponse';
import type { SearchMatrixPoints__Output } from '../../grpc/generated/vectorstore/SearchMatrixPoints';
import { matrixOffsetsToProto, matrixPairsToProto, searchMatrixFromProto } from './matrix.mapper';
import { issuesOf, wireRequest, wireResponse } from './points-wire.spec-helper';

const request = (body: object) =>
  searchMatrixFromProto(wireRequest<SearchMatrixPoints__Output>('SearchMatrixPairs', { collectionName: 'c', ...body }));

describe('distance matrix mapping', () => {
  describe(searchMatrixFromProto.name, () => {
    it('should default to a sample of 10, 3 neighbours and the unnamed vector', () => {
      expect(request({})).toEqual({ collectionName: 'c', request: { sample: 10, limit: 3, using: '' } });
    });

    it('should map every field, read_consistency and shard_key_selector included', () => {
      const mapped = request({
        sample: 50,
        limit: 5,
        using: 'text',
        timeout: 7,
        filter: { must: [{ field: { key: 'tag', match: { keyword: 'a' } } }] },
        readConsistency: { type: 'Majority' },
        shardKeySelector: { shardKeys: [{ keyword: 'k' }] },
      });
      expect(mapped).toEqual({
        collectionName: 'c',
        request: {
          sample: 50,
          limit: 5,
          using: 'text',
          timeout: 7,
          filter: { must: [{ field: { key: 'tag', match: { keyword: 'a' } } }] },
          shardKeySelector: { shardKeys: [{ keyword: 'k' }] },
          readConsistency: { type: 'Majority' },
        },
      });
    });

    it('should refuse a sample below 2 and a limit of 0, by field', () => {
      expect(issuesOf(() => request({ sample: 1, limit: 0 }))).toEqual([
        'sample: value 1 invalid, must be 2 or larger',
        'limit: value 0 invalid, must be 1 or larger',
      ]);
    });
  });

  describe('responses', () => {
    const matrix = {
      ids: [1n, 2n, 'a2c4e6f8-0000-4000-8000-000000000001'],
      neighbours: [
        [{ offset: 1, score: 0.5 }],
        [
          { offset: 0, score: 0.5 },
          { offset: 2, score: 0.25 },
        ],
        [],
      ],
    };

    it('should list pairs row by row', () => {
      const wire = wireResponse<SearchMatrixPairsResponse__Output>('SearchMatrixPairs', matrixPairsToProto(matrix));
      expect(wire.result?.pairs).toEqual([
        { a: { num: '1', pointIdOptions: 'num' }, b: { num: '2', pointIdOptions: 'num' }, score: 0.5 },
        { a: { num: '2', pointIdOptions: 'num' }, b: { num: '1', pointIdOptions: 'num' }, score: 0.5 },
        { a: { num: '2', pointIdOptions: 'num' }, b: { uuid: matrix.ids[2], pointIdOptions: 'uuid' }, score: 0.25 },
      ]);
    });

    it('should give offsets into the sampled ids', () => {
      const wire = wireResponse<SearchMatrixOffsetsResponse__Output>(
        'SearchMatrixOffsets',
        matrixOffsetsToProto(matrix),
      );
      expect(wire.result).toEqual({
        offsetsRow: ['0', '1', '1'],
        offsetsCol: ['1', '0', '2'],
        scores: [0.5, 0.5, 0.25],
        ids: [
          { num: '1', pointIdOptions: 'num' },
          { num: '2', pointIdOptions: 'num' },
          { uuid: matrix.ids[2], pointIdOptions: 'uuid' },
        ],
      });
    });
  });
});
