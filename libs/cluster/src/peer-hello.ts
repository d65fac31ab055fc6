// What two peers check when they meet: the same cluster, the same vectorstore version and the same
// Node.js major (stored data and peer messages are only promised to match within one of each).
import { DomainError } from '@vectorstore/common';

export interface PeerIdentity {
  clusterName: string;
  peerId: string;
  incarnation: string;
  version: string;
  nodeMajor: number;
}

export function nodeMajor(): number {
  return Number(process.versions.node.split('.')[0]);
}

/** Throws FAILED_PRECONDITION naming the first difference that keeps `other` out of `self`'s cluster. */
export function checkPeerCompatible(self: PeerIdentity, other: PeerIdentity): void {
  if (other.clusterName !== self.clusterName)
    throw DomainError.failedPrecondition(
      `peer ${other.peerId} belongs to cluster "${other.clusterName}", this one to "${self.clusterName}"`,
    );
  if (other.version !== self.version)
    throw DomainError.failedPrecondition(
      `peer ${other.peerId} runs vectorstore ${other.version}, this one ${self.version}; a cluster runs one version`,
    );
  if (other.nodeMajor !== self.nodeMajor)
    throw DomainError.failedPrecondition(
      `peer ${other.peerId} runs Node.js ${other.nodeMajor}, this one ${self.nodeMajor}; a cluster runs one Node.js major`,
    );
}
