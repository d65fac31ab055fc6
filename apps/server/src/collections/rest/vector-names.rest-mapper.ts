import { CreateVectorNameRequest, NewVectorConfig } from '@vectorstore/collections';
import { bodyFormatError } from '../../core/rest/rest-format.error';
import { decodeBody, enumOf, object, objectValue, u64 } from '../../core/rest/rest-decoders';
import { readWait, readWriteTimeout, RestQuery } from '../../core/rest/rest-query';
import { defined } from '../../core/scalars';
import { DATATYPE_NAMES, DISTANCE_NAMES, MODIFIER_NAMES } from './collection-config.rest-decoders';

const denseDecoder = object<Extract<NewVectorConfig, { dense: unknown }>['dense']>(
  {
    size: u64,
    distance: enumOf(DISTANCE_NAMES),
    datatype: enumOf(DATATYPE_NAMES),
    multivector_config: object({ comparator: enumOf({ max_sim: 'MaxSim' }) }, ['comparator']),
  },
  ['size', 'distance'],
);
const sparseDecoder = object<Extract<NewVectorConfig, { sparse: unknown }>['sparse']>({
  modifier: enumOf(MODIFIER_NAMES),
  datatype: enumOf(DATATYPE_NAMES),
});

/** `PUT /collections/{c}/vectors/{name}`: `{"dense": {…}}` or `{"sparse": {…}}`. */
export function createVectorNameFromRest(
  collectionName: string,
  vectorName: string,
  body: unknown,
  query: RestQuery,
): { request: CreateVectorNameRequest; wait: boolean } {
  const wait = readWait(query);
  const timeout = readWriteTimeout(query);
  const input = decodeBody(body, objectValue);
  let config: NewVectorConfig;
  if (input.dense !== undefined && input.dense !== null) config = { dense: denseDecoder(input.dense, 'dense') };
  else if (input.sparse !== undefined && input.sparse !== null)
    config = { sparse: sparseDecoder(input.sparse, 'sparse') };
  else throw bodyFormatError('', 'data did not match any variant of untagged enum VectorNameConfig');
  return { request: defined({ collectionName, vectorName, config, timeout }), wait };
}
