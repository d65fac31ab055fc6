/**
 * Counts events per key over a sliding window (a log of timestamps, at most `limit` per key).
 * Memory is bounded: at most `maxKeys` keys, the least recently touched evicted first.
 */
export class SlidingWindowLimiter {
  private readonly events = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Milliseconds until one more event would be allowed; 0 when it is allowed now. */
  retryAfterMs(key: string, now: number): number {
    const times = this.live(key, now);
    if (times.length < this.limit) return 0;
    return times[times.length - this.limit] + this.windowMs - now;
  }

  record(key: string, now: number): void {
    const times = this.live(key, now);
    times.push(now);
    if (times.length > this.limit) times.splice(0, times.length - this.limit);
    // Re-insert so the Map's order is least recently touched first.
    this.events.delete(key);
    this.events.set(key, times);
    if (this.events.size > this.maxKeys) {
      const oldest = this.events.keys().next().value;
      if (oldest !== undefined) this.events.delete(oldest);
    }
  }

  reset(key: string): void {
    this.events.delete(key);
  }

  /** Takes back one event recorded at `at` (a reserved attempt that turned out fine). */
  unrecord(key: string, at: number): void {
    const times = this.events.get(key);
    const index = times?.lastIndexOf(at) ?? -1;
    if (times && index >= 0) times.splice(index, 1);
  }

  private live(key: string, now: number): number[] {
    const times = this.events.get(key);
    if (!times) return [];
    const firstLive = times.findIndex((time) => time > now - this.windowMs);
    if (firstLive === -1) {
      this.events.delete(key);
      return [];
    }
    if (firstLive > 0) times.splice(0, firstLive);
    return times;
  }
}
