// How peers prove to each other that they belong to the cluster: an HMAC-SHA256 of the caller's id,
// incarnation and the current minute under the cluster secret. It is accepted for the previous, current
// and next minute (clock skew), compared in constant time. Client credentials never pass this check.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const PEER_ID_HEADER = 'x-vs-peer';
export const PEER_INCARNATION_HEADER = 'x-vs-incarnation';
export const PEER_AUTH_SCHEME = 'Peer';

export interface PeerCredential {
  peerId: string;
  incarnation: string;
  /** `Peer <hex>`, for the `authorization` header. */
  authorization: string;
}

export function peerCredential(
  secret: string,
  peerId: string,
  incarnation: string,
  nowMs = Date.now(),
): PeerCredential {
  const token = sign(secret, peerId, incarnation, Math.floor(nowMs / 60_000));
  return { peerId, incarnation, authorization: `${PEER_AUTH_SCHEME} ${token}` };
}

/** Whether the headers carry a valid peer signature; never throws on malformed input. */
export function verifyPeerCredential(
  secret: string,
  headers: { peerId?: string; incarnation?: string; authorization?: string },
  nowMs = Date.now(),
): boolean {
  const { peerId, incarnation, authorization } = headers;
  if (!peerId || !incarnation || !authorization || !/^\d{1,20}$/.test(peerId)) return false;
  const match = /^Peer ([0-9a-f]{64})$/.exec(authorization);
  if (!match) return false;
  const given = Buffer.from(match[1], 'hex');
  const minute = Math.floor(nowMs / 60_000);
  let ok = false;
  for (const m of [minute - 1, minute, minute + 1]) {
    // Every candidate is compared, so the time taken does not tell which minute matched.
    ok = timingSafeEqual(given, Buffer.from(sign(secret, peerId, incarnation, m), 'hex')) || ok;
  }
  return ok;
}

/**
 * Signatures already computed: every call between two peers in one minute carries the same one, and a
 * call costs four HMACs otherwise (one to sign, three to verify). Bounded: cleared when it fills up.
 */
const signatures = new Map<string, string>();
const MAX_SIGNATURES = 1024;

function sign(secret: string, peerId: string, incarnation: string, minute: number): string {
  const message = `${peerId}|${incarnation}|${minute}`;
  const key = `${secret}\u0000${message}`;
  let signature = signatures.get(key);
  if (signature === undefined) {
    if (signatures.size >= MAX_SIGNATURES) signatures.clear();
    signature = createHmac('sha256', secret).update(message).digest('hex');
    signatures.set(key, signature);
  }
  return signature;
}
