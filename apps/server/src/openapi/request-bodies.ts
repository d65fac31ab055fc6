import type { OperationName } from '@vectorstore/auth';
import { aliasActionsFromRest } from '../aliases/rest/aliases.rest-mapper';
import {
  clusterOperationFromRest,
  createShardKeyFromRest,
  dropShardKeyFromRest,
} from '../cluster/rest/cluster.rest-mapper';
import { createCollectionFromRest, updateCollectionFromRest } from '../collections/rest/collections.rest-mapper';
import { createFieldIndexFromRest } from '../collections/rest/payload-index.rest-mapper';
import { createVectorNameFromRest } from '../collections/rest/vector-names.rest-mapper';
import {
  countFromRest,
  facetFromRest,
  matrixFromRest,
  retrieveFromRest,
  scrollFromRest,
} from '../points/rest/points-read.rest-mapper';
import { batchFromRest, type WriteKind, writeFromRest } from '../points/rest/points-write.rest-mapper';
import { batchOf, queryFromRest, queryGroupsFromRest, queryRequestAt } from '../points/rest/query.rest-mapper';
import {
  discoverRequestAt,
  recommendGroupsFromRest,
  recommendRequestAt,
  searchGroupsFromRest,
  searchRequestAt,
  singleOf,
} from '../points/rest/search.rest-mapper';
import { recoverFromRest } from '../snapshots/rest/snapshots.rest-mapper';

/**
 * The REST decoder each operation reads its JSON body with: the very functions its controller calls, so that the API
 * description is learnt from them (body-probe.ts). An operation not listed takes no JSON body, or one the decoders
 * here do not describe (the users API's DTOs).
 */
const write =
  (kind: WriteKind) =>
  (body: unknown): unknown =>
    writeFromRest(kind, body, {});

export const REQUEST_BODIES: Partial<Record<OperationName, (body: unknown) => unknown>> = {
  'Collections/Create': (body) => createCollectionFromRest('probe', body, {}),
  'Collections/Update': (body) => updateCollectionFromRest('probe', body, {}),
  'Collections/UpdateAliases': (body) => aliasActionsFromRest(body),
  'Collections/UpdateCollectionClusterSetup': (body) => clusterOperationFromRest(body),
  'Collections/CreateShardKey': (body) => createShardKeyFromRest(body),
  'Collections/DeleteShardKey': (body) => dropShardKeyFromRest(body),
  'Points/CreateFieldIndex': (body) => createFieldIndexFromRest(body, {}),
  'Points/CreateVectorName': (body) => createVectorNameFromRest('probe', 'probe', body, {}),
  'Points/Get': (body) => retrieveFromRest(body, {}),
  'Points/Scroll': (body) => scrollFromRest(body, {}),
  'Points/Count': (body) => countFromRest(body, {}),
  'Points/Facet': (body) => facetFromRest(body, {}),
  'Points/SearchMatrixPairs': (body) => matrixFromRest(body, {}),
  'Points/SearchMatrixOffsets': (body) => matrixFromRest(body, {}),
  'Points/Query': (body) => queryFromRest(body),
  'Points/QueryBatch': (body) => batchOf(body, queryRequestAt),
  'Points/QueryGroups': (body) => queryGroupsFromRest(body),
  'Points/Search': (body) => singleOf(body, searchRequestAt),
  'Points/SearchBatch': (body) => batchOf(body, searchRequestAt),
  'Points/SearchGroups': (body) => searchGroupsFromRest(body),
  'Points/Recommend': (body) => singleOf(body, recommendRequestAt),
  'Points/RecommendBatch': (body) => batchOf(body, recommendRequestAt),
  'Points/RecommendGroups': (body) => recommendGroupsFromRest(body),
  'Points/Discover': (body) => singleOf(body, discoverRequestAt),
  'Points/DiscoverBatch': (body) => batchOf(body, discoverRequestAt),
  'Points/Upsert': write('upsert'),
  'Points/Delete': write('delete'),
  'Points/UpdateVectors': write('update_vectors'),
  'Points/DeleteVectors': write('delete_vectors'),
  'Points/SetPayload': write('set_payload'),
  'Points/OverwritePayload': write('overwrite_payload'),
  'Points/DeletePayload': write('delete_payload'),
  'Points/ClearPayload': write('clear_payload'),
  'Points/UpdateBatch': (body) => batchFromRest(body, {}),
  'Snapshots/Recover': (body) => recoverFromRest('probe', body),
  'Snapshots/RecoverShard': (body) => recoverFromRest('probe', body),
  'Snapshots/RecoverFull': (body) => recoverFromRest('', body),
};
