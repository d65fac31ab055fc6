import type { CreateVectorNameRequest__Output } from '../../grpc/generated/vectorstore/CreateVectorNameRequest';
import type { DeleteVectorNameRequest__Output } from '../../grpc/generated/vectorstore/DeleteVectorNameRequest';
import type { PointsOperationResponse__Output } from '../../grpc/generated/vectorstore/PointsOperationResponse';
import { issuesOf, wireRequest, wireResponse } from './points-wire.spec-helper';
import { createVectorNameFromProto, deleteVectorNameFromProto, vectorNameResponseToProto } from './vector-names.mapper';

const create = (body: object) =>
  createVectorNameFromProto(
    wireRequest<CreateVectorNameRequest__Output>('CreateVectorName', { collectionName: 'c', vectorName: 'v', ...body }),
  );

describe('vector name mapping', () => {
  describe(createVectorNameFromProto.name, () => {
    it('should map a dense config with its datatype and multivector comparator', () => {
      expect(
        create({
          denseConfig: {
            size: 8,
            distance: 'Manhattan',
            datatype: 'Float16',
            multivectorConfig: { comparator: 'MaxSim' },
          },
          wait: true,
          timeout: 5,
          ordering: { type: 'Strong' },
        }),
      ).toEqual({
        request: {
          collectionName: 'c',
          vectorName: 'v',
          config: {
            dense: { size: 8, distance: 'Manhattan', datatype: 'Float16', multivectorConfig: { comparator: 'MaxSim' } },
          },
          timeout: 5,
        },
        wait: true,
      });
    });

    it('should leave the default datatype unset, and an unset distance for validation to report', () => {
      expect(create({ denseConfig: { size: 3, datatype: 'Default' } }).request.config).toEqual({ dense: { size: 3 } });
      expect(create({ denseConfig: { size: 3, distance: 'UnknownDistance' } }).request.config).toEqual({
        dense: { size: 3, distance: 'UnknownDistance' },
      });
    });

    it('should map a sparse config, wait defaulting to false', () => {
      expect(create({ sparseConfig: { modifier: 'Idf', datatype: 'Uint8' } })).toEqual({
        request: { collectionName: 'c', vectorName: 'v', config: { sparse: { modifier: 'Idf', datatype: 'Uint8' } } },
        wait: false,
      });
      expect(create({ sparseConfig: {} }).request.config).toEqual({ sparse: {} });
    });

    it('should report a request without a vector config', () => {
      expect(issuesOf(() => create({}))).toEqual(['vector_config: must set dense_config or sparse_config']);
    });
  });

  describe(deleteVectorNameFromProto.name, () => {
    it('should map the name, wait and timeout', () => {
      const wire = wireRequest<DeleteVectorNameRequest__Output>('DeleteVectorName', {
        collectionName: 'c',
        vectorName: 'v',
        wait: true,
        timeout: 3,
        ordering: { type: 'Weak' },
      });
      expect(deleteVectorNameFromProto(wire)).toEqual({
        request: { collectionName: 'c', vectorName: 'v', timeout: 3 },
        wait: true,
      });
    });
  });

  describe(vectorNameResponseToProto.name, () => {
    it('should answer the status without an operation id', () => {
      const wire = wireResponse<PointsOperationResponse__Output>(
        'CreateVectorName',
        vectorNameResponseToProto('Completed'),
      );
      expect(wire.result).toEqual({ status: 'Completed' });
    });
  });
});
