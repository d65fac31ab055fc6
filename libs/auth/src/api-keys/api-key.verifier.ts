import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccessLevel } from '../access/access.model';

/**
 * Qdrant's static keys: `VECTORSTORE_API_KEY` grants manage (`m`), `VECTORSTORE_READ_ONLY_API_KEY`
 * read (`r`). A candidate is compared with every configured key in constant time: both sides are
 * reduced to equal-length HMAC digests (under a per-process random key) before `timingSafeEqual`,
 * and every key is checked whatever the outcome, so timing reveals neither length nor prefix.
 */
export class ApiKeyVerifier {
  private readonly digestKey = randomBytes(32);
  private readonly keys: ReadonlyArray<{ digest: Buffer; access: AccessLevel }>;
  /**
   * Keys already verified, by their text: only configured keys get in (at most two entries), so a client
   * pays the HMAC once, not per request. A lookup hashes the candidate with V8's per-process random seed and
   * compares text only on a full hash match with a stored key, so its timing tells nothing about a key's
   * prefix; a miss takes the constant-time path below.
   */
  private readonly verified = new Map<string, AccessLevel>();

  constructor(apiKey?: string, readOnlyApiKey?: string) {
    const keys: Array<{ digest: Buffer; access: AccessLevel }> = [];
    if (apiKey) keys.push({ digest: this.digest(apiKey), access: 'm' });
    if (readOnlyApiKey) keys.push({ digest: this.digest(readOnlyApiKey), access: 'r' });
    this.keys = keys;
  }

  /** The access `candidate` grants, or undefined when it is no configured key. */
  match(candidate: string): AccessLevel | undefined {
    const known = this.verified.get(candidate);
    if (known !== undefined) return known;
    const digest = this.digest(candidate);
    let granted: AccessLevel | undefined;
    for (const key of this.keys) {
      // No early exit: the manage key wins if both keys were configured equal.
      if (timingSafeEqual(digest, key.digest) && granted !== 'm') granted = key.access;
    }
    if (granted !== undefined) this.verified.set(candidate, granted);
    return granted;
  }

  private digest(value: string): Buffer {
    return createHmac('sha256', this.digestKey).update(value, 'utf8').digest();
  }
}
