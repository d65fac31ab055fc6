import { DomainError } from '@vectorstore/common';

// The cluster's key layout in the metadata store, under `/vectorstore/<cluster name>/` (docs/cluster.md).

export class ClusterKeys {
  readonly root: string;

  constructor(clusterName: string) {
    this.root = `/vectorstore/${clusterName}/`;
  }

  /** `{v: 1}`: the layout version, written by the first peer. */
  get format(): string {
    return `${this.root}meta/format`;
  }

  /** Every peer that ever joined (no lease): its addresses and when it first joined. */
  member(peerId: string): string {
    return `${this.root}members/${peerId}`;
  }

  /** The live peers, one key each on the peer's lease. */
  get peers(): string {
    return `${this.root}peers/`;
  }

  peer(peerId: string): string {
    return `${this.peers}${peerId}`;
  }

  /** `{peerId, incarnation}` on the leader's lease. */
  get leader(): string {
    return `${this.root}leader`;
  }

  /** The collection catalog: one key per collection plus one for all aliases. */
  get catalog(): string {
    return `${this.root}catalog/`;
  }

  get collections(): string {
    return `${this.catalog}collections/`;
  }

  /** Any name is valid as a collection name, so it is percent-encoded into the key. */
  collection(name: string): string {
    // A lone surrogate has no UTF-8 form: such a name cannot be a key in etcd.
    if (/\p{Surrogate}/u.test(name))
      throw DomainError.invalidArgument('Collection name must be valid Unicode (no lone surrogates) in cluster mode');
    return `${this.collections}${encodeURIComponent(name)}`;
  }

  collectionName(key: string): string {
    return decodeURIComponent(key.slice(this.collections.length));
  }

  /** One key, so that UpdateAliases stays atomic. */
  get aliases(): string {
    return `${this.catalog}aliases`;
  }

  /** Every user in one key (argon2id hashes, roles, token versions): a change of the users is one guarded write. */
  get users(): string {
    return `${this.root}auth/users`;
  }

  /** Refresh sessions (token families), one key each. */
  get sessions(): string {
    return `${this.root}auth/sessions/`;
  }

  session(familyId: string): string {
    return `${this.sessions}${familyId}`;
  }

  /** Refresh tokens by their SHA-256 (base64url), one key each. */
  get tokens(): string {
    return `${this.root}auth/tokens/`;
  }

  token(hash: string): string {
    return `${this.tokens}${hash}`;
  }
}
