import { peerCredential, verifyPeerCredential } from './peer-auth';
import { checkPeerCompatible, PeerIdentity } from './peer-hello';

const SECRET = 's'.repeat(32);
const NOW = Date.UTC(2026, 10, 26, 12, 0, 30);

describe('peer credentials', () => {
  const headersOf = (credential: ReturnType<typeof peerCredential>) => ({
    peerId: credential.peerId,
    incarnation: credential.incarnation,
    authorization: credential.authorization,
  });

  it('should accept a credential made with the same secret within a minute either way', () => {
    const credential = peerCredential(SECRET, '123', 'abc', NOW);

    expect(verifyPeerCredential(SECRET, headersOf(credential), NOW)).toBe(true);
    expect(verifyPeerCredential(SECRET, headersOf(credential), NOW + 60_000)).toBe(true);
    expect(verifyPeerCredential(SECRET, headersOf(credential), NOW - 60_000)).toBe(true);
  });

  it('should refuse a credential older than the skew window', () => {
    const credential = peerCredential(SECRET, '123', 'abc', NOW);

    expect(verifyPeerCredential(SECRET, headersOf(credential), NOW + 120_000)).toBe(false);
  });

  it('should refuse another secret, another peer id or another incarnation', () => {
    const credential = peerCredential(SECRET, '123', 'abc', NOW);

    expect(verifyPeerCredential('t'.repeat(32), headersOf(credential), NOW)).toBe(false);
    expect(verifyPeerCredential(SECRET, { ...headersOf(credential), peerId: '124' }, NOW)).toBe(false);
    expect(verifyPeerCredential(SECRET, { ...headersOf(credential), incarnation: 'abd' }, NOW)).toBe(false);
  });

  it.each([
    [{}],
    [{ peerId: '123', incarnation: 'abc' }],
    [{ peerId: '123', incarnation: 'abc', authorization: 'Bearer x' }],
    [{ peerId: '123', incarnation: 'abc', authorization: 'Peer zz' }],
    [{ peerId: 'not-a-number', incarnation: 'abc', authorization: `Peer ${'0'.repeat(64)}` }],
  ])('should refuse malformed headers %j without throwing', (headers) => {
    expect(verifyPeerCredential(SECRET, headers, NOW)).toBe(false);
  });
});

describe('checkPeerCompatible', () => {
  const self: PeerIdentity = { clusterName: 'c', peerId: '1', incarnation: 'a', version: '1.19.0', nodeMajor: 20 };

  it('should accept a peer of the same cluster, version and Node.js major', () => {
    expect(() => checkPeerCompatible(self, { ...self, peerId: '2', incarnation: 'b' })).not.toThrow();
  });

  it.each([
    [{ clusterName: 'other' }, 'belongs to cluster "other"'],
    [{ version: '1.18.0' }, 'runs vectorstore 1.18.0'],
    [{ nodeMajor: 22 }, 'runs Node.js 22'],
  ])('should refuse a peer differing in %j', (difference, message) => {
    expect(() => checkPeerCompatible(self, { ...self, peerId: '2', ...difference })).toThrow(message);
  });
});
