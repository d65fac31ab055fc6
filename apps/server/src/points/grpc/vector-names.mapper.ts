import type {
  CreateVectorNameRequest,
  Datatype,
  DeleteVectorNameRequest,
  Distance,
  Modifier,
  NewVectorConfig,
} from '@vectorstore/collections';
import { ValidationIssues } from '@vectorstore/common';
import type { UpdateStatus } from '@vectorstore/points';
import type { CreateVectorNameRequest__Output } from '../../grpc/generated/vectorstore/CreateVectorNameRequest';
import type { DeleteVectorNameRequest__Output } from '../../grpc/generated/vectorstore/DeleteVectorNameRequest';
import type { PointsOperationResponse } from '../../grpc/generated/vectorstore/PointsOperationResponse';
import { defined, readEnum, readU64 } from '../../core/scalars';

/**
 * CreateVectorName / DeleteVectorName mapped to the collections domain, with the `wait` flag (it
 * only picks the status answered). `ordering` is accepted and ignored, as on every write.
 */
export interface VectorNameMapping<T> {
  request: T;
  wait: boolean;
}

/** The `vector_config` oneof: a dense config (an unset or unknown distance is left for validation to refuse) or a sparse one. */
function newVectorConfigFromProto(
  issues: ValidationIssues,
  r: CreateVectorNameRequest__Output,
): NewVectorConfig | undefined {
  if (r.vectorConfig === 'denseConfig' && r.denseConfig) {
    const d = r.denseConfig;
    return {
      dense: defined({
        size: readU64(issues, 'dense_config.size', d.size ?? '0') ?? 0,
        distance: readEnum<Distance>(d.distance) as Distance,
        datatype: readEnum<Datatype>(d.datatype, 'Default'),
        multivectorConfig: d.multivectorConfig
          ? { comparator: readEnum<'MaxSim'>(d.multivectorConfig.comparator) ?? 'MaxSim' }
          : undefined,
      }),
    };
  }
  if (r.vectorConfig === 'sparseConfig' && r.sparseConfig) {
    return {
      sparse: defined({
        modifier: readEnum<Modifier>(r.sparseConfig.modifier),
        datatype: readEnum<Datatype>(r.sparseConfig.datatype, 'Default'),
      }),
    };
  }
  issues.add('vector_config', 'must set dense_config or sparse_config');
  return undefined;
}

export function createVectorNameFromProto(
  r: CreateVectorNameRequest__Output,
): VectorNameMapping<CreateVectorNameRequest> {
  const issues = new ValidationIssues();
  const config = newVectorConfigFromProto(issues, r);
  const timeout = readU64(issues, 'timeout', r.timeout);
  issues.throwIfAny();
  return {
    request: defined({
      collectionName: r.collectionName ?? '',
      vectorName: r.vectorName ?? '',
      config: config!,
      timeout,
    }),
    wait: r.wait ?? false,
  };
}

export function deleteVectorNameFromProto(
  r: DeleteVectorNameRequest__Output,
): VectorNameMapping<DeleteVectorNameRequest> {
  const issues = new ValidationIssues();
  const timeout = readU64(issues, 'timeout', r.timeout);
  issues.throwIfAny();
  return {
    request: defined({ collectionName: r.collectionName ?? '', vectorName: r.vectorName ?? '', timeout }),
    wait: r.wait ?? false,
  };
}

/** A schema change has no operation number of its own in the log: only the status is set. */
export function vectorNameResponseToProto(status: UpdateStatus): PointsOperationResponse {
  return { result: { status } };
}
