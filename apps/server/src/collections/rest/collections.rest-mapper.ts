import { CollectionParamsDiff, CreateCollectionRequest, UpdateCollectionRequest } from '@vectorstore/collections';
import { JsonObject } from '@vectorstore/common';
import { bool, decodeBody, enumOf, jsonObject, object, u32, u64 } from '../../core/rest/rest-decoders';
import { readMetaTimeout, RestQuery } from '../../core/rest/rest-query';
import { defined } from '../../core/scalars';
import {
  hnswDecoder,
  OPTIMIZERS_ALIAS,
  optimizersDecoder,
  payloadStorageDecoder,
  QUANTIZATION_ALIAS,
  quantizationDecoder,
  quantizationDiffDecoder,
  SHARDING_METHOD_NAMES,
  sparseVectorsDecoder,
  strictModeDecoder,
  vectorsDecoder,
  vectorsDiffDecoder,
  walDecoder,
} from './collection-config.rest-decoders';

type CreateFields = Omit<CreateCollectionRequest, 'name' | 'timeout'>;

const createCollectionDecoder = object<CreateFields>(
  {
    vectors: vectorsDecoder,
    sparse_vectors: sparseVectorsDecoder,
    shard_number: u32,
    sharding_method: enumOf(SHARDING_METHOD_NAMES),
    replication_factor: u32,
    write_consistency_factor: u32,
    on_disk_payload: bool,
    payload: payloadStorageDecoder,
    hnsw_config: hnswDecoder,
    wal_config: walDecoder,
    optimizers_config: optimizersDecoder,
    quantization_config: quantizationDecoder,
    strict_mode_config: strictModeDecoder,
    metadata: jsonObject,
  },
  [],
  { ...QUANTIZATION_ALIAS, ...OPTIMIZERS_ALIAS },
);

type UpdateFields = Omit<UpdateCollectionRequest, 'name' | 'timeout'>;

const updateCollectionDecoder = object<UpdateFields>(
  {
    vectors: vectorsDiffDecoder,
    optimizers_config: optimizersDecoder,
    params: object<CollectionParamsDiff>({
      replication_factor: u32,
      write_consistency_factor: u32,
      read_fan_out_factor: u32,
      read_fan_out_delay_ms: u64,
      on_disk_payload: bool,
      payload: payloadStorageDecoder,
    }),
    hnsw_config: hnswDecoder,
    quantization_config: quantizationDiffDecoder,
    sparse_vectors: sparseVectorsDecoder,
    strict_mode_config: strictModeDecoder,
    metadata: jsonObject,
  },
  [],
  { ...QUANTIZATION_ALIAS, ...OPTIMIZERS_ALIAS },
);

/** `PUT /collections/{c}`: the body's shape; the rules are the domain's. */
export function createCollectionFromRest(name: string, body: unknown, query: RestQuery): CreateCollectionRequest {
  const timeout = readMetaTimeout(query);
  return defined({ ...decodeBody(body, createCollectionDecoder), name, timeout });
}

/** `PATCH /collections/{c}`. An empty metadata object changes nothing. */
export function updateCollectionFromRest(name: string, body: unknown, query: RestQuery): UpdateCollectionRequest {
  const timeout = readMetaTimeout(query);
  const fields = decodeBody(body, updateCollectionDecoder);
  const metadata: JsonObject | undefined =
    fields.metadata && Object.keys(fields.metadata).length > 0 ? fields.metadata : undefined;
  return defined({ ...fields, metadata, name, timeout });
}
