// @vectorstore/cluster: cluster mode on etcd (docs/cluster.md): the metadata store, this peer's lease,
// membership, leader election and the shared collection catalog. Standalone servers never load it.
export { ClusterNode, type ClusterNodeOptions } from './cluster-node';
export { ClusterKeys } from './cluster-keys';
export { openClusterUsers } from './auth/cluster-users';
export { EtcdCatalogStore } from './etcd-catalog.store';
export { PeerLease } from './peer-lease';
export { PeerRegistry, type PeerInfo } from './peer-registry';
export { LeaderElection, type LeaderInfo } from './leader-election';
export { checkPeerCompatible, nodeMajor, type PeerIdentity } from './peer-hello';
export { PeerContacts, type PeerTransport, type SendFailures } from './peer-contacts';
export {
  peerCredential,
  verifyPeerCredential,
  PEER_AUTH_SCHEME,
  PEER_ID_HEADER,
  PEER_INCARNATION_HEADER,
  type PeerCredential,
} from './peer-auth';
export type {
  Guard,
  MetadataStore,
  MetadataWatch,
  StoredKey,
  TxnResult,
  WatchEvent,
  WatchHandlers,
  Write,
} from './metadata/metadata-store';
