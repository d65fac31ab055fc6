import { AuthErrors } from '../auth.errors';
import { clientAddressKey } from './client-address';
import { SlidingWindowLimiter } from './sliding-window.limiter';

export interface LoginThrottleLimits {
  /** Failed logins allowed per account (email) in the window. */
  perAccount: number;
  /** Failed logins allowed per client address in the window. */
  perAddress: number;
  windowMs: number;
}

/** OWASP-style defaults: 5 failures per account and 20 per address in 15 minutes. */
export const DEFAULT_LOGIN_THROTTLE: LoginThrottleLimits = { perAccount: 5, perAddress: 20, windowMs: 15 * 60 * 1000 };

/**
 * Slows password guessing: after too many failed logins for one account, or from one address,
 * further attempts are refused with 429 and a Retry-After until the window slides. Unknown emails
 * count like known ones, so the answer says nothing about which accounts exist.
 */
export class LoginThrottle {
  private readonly accounts: SlidingWindowLimiter;
  private readonly addresses: SlidingWindowLimiter;

  constructor(
    limits: LoginThrottleLimits = DEFAULT_LOGIN_THROTTLE,
    private readonly now: () => number = Date.now,
  ) {
    this.accounts = new SlidingWindowLimiter(limits.perAccount, limits.windowMs);
    this.addresses = new SlidingWindowLimiter(limits.perAddress, limits.windowMs);
  }

  /** Throws ResourceExhausted (with seconds to wait) when either limit is reached. */
  assertAllowed(account: string, address: string): void {
    const now = this.now();
    const waitMs = Math.max(
      this.accounts.retryAfterMs(account, now),
      this.addresses.retryAfterMs(clientAddressKey(address), now),
    );
    if (waitMs > 0) throw AuthErrors.tooManyAttempts(Math.max(1, Math.ceil(waitMs / 1000)));
  }

  /**
   * Checks the limits and counts the attempt as a failure up front, so parallel attempts cannot all
   * pass the check before any failure is recorded. Returns a function that takes the attempt back
   * (for a successful login).
   */
  reserve(account: string, address: string): () => void {
    this.assertAllowed(account, address);
    const now = this.now();
    const addressKey = clientAddressKey(address);
    this.accounts.record(account, now);
    this.addresses.record(addressKey, now);
    return () => {
      this.accounts.reset(account);
      this.addresses.unrecord(addressKey, now);
    };
  }

  recordFailure(account: string, address: string): void {
    const now = this.now();
    this.accounts.record(account, now);
    this.addresses.record(clientAddressKey(address), now);
  }

  /** A successful login clears the account's failures (not the address's). */
  recordSuccess(account: string): void {
    this.accounts.reset(account);
  }
}
