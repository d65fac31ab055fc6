import { ErrorKind } from '@vectorstore/common';
import { LoginThrottle } from './login-throttle';
import { SlidingWindowLimiter } from './sliding-window.limiter';

describe(SlidingWindowLimiter.name, () => {
  describe('retryAfterMs', () => {
    it('should allow up to the limit, then say when the oldest event leaves the window', () => {
      const limiter = new SlidingWindowLimiter(2, 1000);
      expect(limiter.retryAfterMs('k', 0)).toBe(0);
      limiter.record('k', 0);
      limiter.record('k', 400);
      expect(limiter.retryAfterMs('k', 500)).toBe(500);
      expect(limiter.retryAfterMs('k', 1000)).toBe(0);
      expect(limiter.retryAfterMs('other', 500)).toBe(0);
    });
  });

  describe('record', () => {
    it('should evict the least recently touched key beyond maxKeys', () => {
      const limiter = new SlidingWindowLimiter(1, 1000, 2);
      limiter.record('a', 0);
      limiter.record('b', 0);
      limiter.record('c', 0);
      expect(limiter.retryAfterMs('a', 1)).toBe(0);
      expect(limiter.retryAfterMs('c', 1)).toBeGreaterThan(0);
    });
  });
});

describe(LoginThrottle.name, () => {
  let now = 0;
  const throttle = (): LoginThrottle =>
    new LoginThrottle({ perAccount: 3, perAddress: 5, windowMs: 60_000 }, () => now);

  beforeEach(() => {
    now = 1_000_000;
  });

  describe('assertAllowed', () => {
    it('should refuse an account after its limit with ResourceExhausted and whole seconds to wait', () => {
      const subject = throttle();
      for (let i = 0; i < 3; i++) subject.recordFailure('a@x.io', `10.0.0.${i}`);
      now += 1_500;
      expect(() => subject.assertAllowed('a@x.io', '10.0.0.9')).toThrow(
        expect.objectContaining({ kind: ErrorKind.ResourceExhausted, retryAfterSeconds: 59 }),
      );
      expect(() => subject.assertAllowed('b@x.io', '10.0.0.9')).not.toThrow();
    });

    it('should refuse an address after its limit, whatever the account', () => {
      const subject = throttle();
      for (let i = 0; i < 5; i++) subject.recordFailure(`u${i}@x.io`, '10.0.0.1');
      expect(() => subject.assertAllowed('new@x.io', '10.0.0.1')).toThrow(
        expect.objectContaining({ kind: ErrorKind.ResourceExhausted }),
      );
      expect(() => subject.assertAllowed('new@x.io', '10.0.0.2')).not.toThrow();
    });

    it('should allow again once the window has slid', () => {
      const subject = throttle();
      for (let i = 0; i < 3; i++) subject.recordFailure('a@x.io', '10.0.0.1');
      now += 60_001;
      expect(() => subject.assertAllowed('a@x.io', '10.0.0.1')).not.toThrow();
    });
  });

  describe('recordSuccess', () => {
    it('should clear the account but not the address', () => {
      const subject = throttle();
      for (let i = 0; i < 3; i++) subject.recordFailure('a@x.io', '10.0.0.1');
      subject.recordSuccess('a@x.io');
      expect(() => subject.assertAllowed('a@x.io', '10.0.0.2')).not.toThrow();
      subject.recordFailure('b@x.io', '10.0.0.1');
      subject.recordFailure('c@x.io', '10.0.0.1');
      expect(() => subject.assertAllowed('a@x.io', '10.0.0.1')).toThrow();
    });
  });
});
