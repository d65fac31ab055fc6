import { TransferSender } from './transfer-sender';
import { stepBytes, TransferStep } from './transfer-steps';

/** A step of exactly `bytes` bytes as the sender counts them (a file piece: its data plus 64). */
const step = (name: string, bytes = 100): TransferStep => ({
  kind: 'file',
  path: name,
  offset: 0,
  data: new Uint8Array(bytes - 64),
});
const names = (steps: TransferStep[]) => steps.map((s) => (s.kind === 'file' ? s.path : s.kind));

/** A target whose every call waits until the test answers it. */
class ManualTarget {
  readonly calls: Array<{
    seq: number;
    steps: string[];
    resolve: () => void;
    reject: (error: unknown) => void;
  }> = [];
  inFlight = 0;
  maxInFlight = 0;

  readonly send = (seq: number, steps: TransferStep[]): Promise<void> => {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise<void>((resolve, reject) =>
      this.calls.push({
        seq,
        steps: names(steps),
        resolve: () => {
          this.inFlight--;
          resolve();
        },
        reject: (error) => {
          this.inFlight--;
          reject(error);
        },
      }),
    );
  };

  get last() {
    return this.calls[this.calls.length - 1];
  }

  /** What was sent: `seq:step,step`. */
  get sent(): string[] {
    return this.calls.map((call) => `${call.seq}:${call.steps.join(',')}`);
  }
}

/** Lets every queued promise callback run (the sender's loop continues in microtasks). */
const settle = async () => {
  for (let i = 0; i < 50; i++) await Promise.resolve();
};

/** The state of a promise, without waiting for it. */
function track(promise: Promise<unknown>): { state: 'pending' | 'resolved' | 'rejected'; error?: unknown } {
  const tracked: { state: 'pending' | 'resolved' | 'rejected'; error?: unknown } = { state: 'pending' };
  void promise.then(
    () => (tracked.state = 'resolved'),
    (error: unknown) => {
      tracked.state = 'rejected';
      tracked.error = error;
    },
  );
  return tracked;
}

describe(TransferSender.name, () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  describe('order and batches', () => {
    it('sends one numbered batch at a time, in push order, batching what was pushed while one was in flight', async () => {
      const target = new ManualTarget();
      const sender = new TransferSender(target.send);
      sender.push(step('a'));
      // The first push starts sending in its own tick.
      expect(target.sent).toEqual(['1:a']);
      sender.push(step('b'));
      sender.push(step('c'));
      await settle();
      expect(target.sent).toEqual(['1:a']);
      target.last.resolve();
      await settle();
      expect(target.sent).toEqual(['1:a', '2:b,c']);
      sender.push(step('d'));
      target.last.resolve();
      await settle();
      target.last.resolve();
      await settle();
      expect(target.sent).toEqual(['1:a', '2:b,c', '3:d']);
      expect(target.maxInFlight).toBe(1);
      expect(sender.delivered).toBe(4);
      expect(sender.pendingBytes).toBe(0);
    });

    it('keeps the order of pushes interleaved from concurrent producers while batches are in flight', async () => {
      const sent: Array<{ seq: number; steps: string[] }> = [];
      let inFlight = 0;
      let maxInFlight = 0;
      // A target that answers each batch a few ticks later.
      const sender = new TransferSender(
        async (seq, steps) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          sent.push({ seq, steps: names(steps) });
          await settle();
          inFlight--;
        },
        { maxBatchBytes: 300 },
      );
      const pushed: string[] = [];
      const produce = async (prefix: string) => {
        for (let i = 0; i < 20; i++) {
          const name = `${prefix}${i}`;
          pushed.push(name);
          sender.push(step(name));
          for (let ticks = 0; ticks < i % 3; ticks++) await Promise.resolve();
        }
      };
      await Promise.all([produce('x'), produce('y'), produce('z')]);
      await sender.drained();
      expect(sent.flatMap((batch) => batch.steps)).toEqual(pushed);
      expect(sent.map((batch) => batch.seq)).toEqual(sent.map((_, i) => i + 1));
      expect(sent.length).toBeGreaterThan(1);
      expect(sent.every((batch) => batch.steps.length <= 3)).toBe(true);
      expect(maxInFlight).toBe(1);
      expect(sender.delivered).toBe(60);
    });

    it('fills a batch up to maxBatchBytes, and sends a step bigger than that alone', async () => {
      const target = new ManualTarget();
      const sender = new TransferSender(target.send, { maxBatchBytes: 250 });
      sender.push(step('a'));
      for (const [name, bytes] of [
        ['b', 100],
        ['c', 100],
        ['d', 100],
        ['big', 1000],
        ['e', 100],
      ] as const)
        sender.push(step(name, bytes));
      for (let i = 0; i < 5; i++) {
        target.last.resolve();
        await settle();
      }
      expect(target.sent).toEqual(['1:a', '2:b,c', '3:d', '4:big', '5:e']);
    });

    it('counts bytes as stepBytes does', () => {
      expect(stepBytes(step('a', 100))).toBe(100);
      expect(stepBytes({ kind: 'reset' })).toBe(16);
    });
  });

  describe('retries', () => {
    it('sends a failed batch again with the same number and steps after a back-off, then goes on numbering', async () => {
      jest.useFakeTimers();
      const target = new ManualTarget();
      const retryable = jest.fn(() => true);
      const sender = new TransferSender(target.send, { retryable });
      sender.push(step('a'));
      sender.push(step('b'));
      const failure = new Error('connection reset');
      target.calls[0].reject(failure);
      sender.push(step('c'));
      await settle();
      expect(retryable).toHaveBeenCalledWith(failure);
      // First back-off: 200 ms.
      await jest.advanceTimersByTimeAsync(199);
      expect(target.calls).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(1);
      expect(target.sent).toEqual(['1:a', '1:a']);
      target.last.reject(failure);
      // Second back-off: 400 ms.
      await jest.advanceTimersByTimeAsync(399);
      expect(target.calls).toHaveLength(2);
      await jest.advanceTimersByTimeAsync(1);
      expect(target.sent).toEqual(['1:a', '1:a', '1:a']);
      target.last.resolve();
      await settle();
      expect(target.sent).toEqual(['1:a', '1:a', '1:a', '2:b,c']);
      expect(sender.failure).toBeUndefined();
      expect(sender.delivered).toBe(1);
    });

    it('fails after `attempts` attempts: nothing more is sent, waiters and later waits reject with the error', async () => {
      jest.useFakeTimers();
      const target = new ManualTarget();
      const sender = new TransferSender(target.send, { attempts: 3 });
      sender.push(step('a'));
      sender.push(step('b'));
      const drained = track(sender.drained());
      const room = track(sender.roomFor(1));
      const failure = new Error('unreachable');
      for (let attempt = 1; attempt <= 3; attempt++) {
        expect(target.calls).toHaveLength(attempt);
        target.last.reject(failure);
        await jest.advanceTimersByTimeAsync(2000);
      }
      expect(target.sent).toEqual(['1:a', '1:a', '1:a']);
      expect(sender.failure).toBe(failure);
      expect(drained).toEqual({ state: 'rejected', error: failure });
      expect(room).toEqual({ state: 'rejected', error: failure });
      await expect(sender.drained()).rejects.toBe(failure);
      await expect(sender.roomFor(Number.MAX_SAFE_INTEGER)).rejects.toBe(failure);
      sender.push(step('c'));
      await jest.advanceTimersByTimeAsync(10_000);
      expect(target.calls).toHaveLength(3);
    });

    it('fails at once on an error that is not retryable', async () => {
      const target = new ManualTarget();
      const refused = new Error('target refused the batch');
      const sender = new TransferSender(target.send, { retryable: (error) => error !== refused });
      sender.push(step('a'));
      const drained = track(sender.drained());
      target.last.reject(refused);
      await settle();
      expect(target.calls).toHaveLength(1);
      expect(sender.failure).toBe(refused);
      expect(drained).toEqual({ state: 'rejected', error: refused });
    });

    it('turns a thrown non-Error into an Error', async () => {
      const target = new ManualTarget();
      const sender = new TransferSender(target.send, { retryable: () => false });
      sender.push(step('a'));
      target.last.reject('gone');
      await settle();
      expect(sender.failure).toBeInstanceOf(Error);
      expect(sender.failure?.message).toBe('gone');
    });
  });

  describe('drained()', () => {
    it('resolves at once when nothing is pending', async () => {
      const sender = new TransferSender(() => Promise.resolve());
      await expect(sender.drained()).resolves.toBeUndefined();
    });

    it('waits for the batch in flight, but not for steps pushed after it was called', async () => {
      const target = new ManualTarget();
      const sender = new TransferSender(target.send);
      sender.push(step('a'));
      const first = track(sender.drained());
      sender.push(step('b'));
      const second = track(sender.drained());
      await settle();
      expect(first.state).toBe('pending');
      target.last.resolve(); // a
      await settle();
      expect(first.state).toBe('resolved');
      expect(second.state).toBe('pending');
      sender.push(step('c'));
      target.last.resolve(); // b
      await settle();
      expect(second.state).toBe('resolved');
      expect(target.sent).toEqual(['1:a', '2:b', '3:c']);
    });

    it('waits for every step of a batch, not only the first', async () => {
      const target = new ManualTarget();
      const sender = new TransferSender(target.send);
      sender.push(step('a'));
      sender.push(step('b'));
      sender.push(step('c'));
      const drained = track(sender.drained());
      target.last.resolve(); // a
      await settle();
      expect(drained.state).toBe('pending');
      target.last.resolve(); // b, c
      await settle();
      expect(drained.state).toBe('resolved');
    });
  });

  describe('back-pressure', () => {
    it('counts pushed bytes until the target applied them, in flight included, and frees room per batch', async () => {
      const target = new ManualTarget();
      const sender = new TransferSender(target.send, { maxBatchBytes: 200 });
      sender.push(step('a', 100));
      sender.push(step('b', 100));
      sender.push(step('c', 100));
      expect(sender.pendingBytes).toBe(300);
      const room250 = track(sender.roomFor(250));
      const room101 = track(sender.roomFor(101));
      const room301 = track(sender.roomFor(301));
      await settle();
      expect(room301.state).toBe('resolved');
      expect([room250.state, room101.state]).toEqual(['pending', 'pending']);
      target.last.resolve(); // a
      await settle();
      expect(sender.pendingBytes).toBe(200);
      expect([room250.state, room101.state]).toEqual(['resolved', 'pending']);
      target.last.resolve(); // b, c
      await settle();
      expect(sender.pendingBytes).toBe(0);
      expect(room101.state).toBe('resolved');
    });
  });

  describe('close()', () => {
    it('rejects waiters with the reason, drops pending steps and sends nothing more', async () => {
      const target = new ManualTarget();
      const sender = new TransferSender(target.send);
      sender.push(step('a'));
      sender.push(step('b'));
      const drained = track(sender.drained());
      const room = track(sender.roomFor(1));
      const reason = new Error('transfer aborted');
      sender.close(reason);
      await settle();
      expect(drained).toEqual({ state: 'rejected', error: reason });
      expect(room).toEqual({ state: 'rejected', error: reason });
      expect(sender.pendingBytes).toBe(0);
      // The batch in flight completes: the queue was dropped, so nothing follows it.
      target.last.resolve();
      sender.push(step('c'));
      await settle();
      expect(target.sent).toEqual(['1:a']);
      expect(sender.failure).toBeUndefined();
    });

    it('rejects with a default reason', async () => {
      const target = new ManualTarget();
      const sender = new TransferSender(target.send);
      sender.push(step('a'));
      const drained = sender.drained();
      sender.close();
      await expect(drained).rejects.toThrow('transfer stopped');
    });

    it('does not retry a batch whose attempt fails after close()', async () => {
      jest.useFakeTimers();
      const target = new ManualTarget();
      const sender = new TransferSender(target.send);
      sender.push(step('a'));
      sender.close();
      target.last.reject(new Error('connection reset'));
      await jest.advanceTimersByTimeAsync(10_000);
      expect(target.calls).toHaveLength(1);
    });
  });
});

describe(`${TransferSender.name}: regressions`, () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  // Regression: a close() during a retry back-off used to let the next attempt go out.
  it('sends nothing more once closed during a retry back-off', async () => {
    jest.useFakeTimers();
    const target = new ManualTarget();
    const sender = new TransferSender(target.send);
    sender.push(step('a'));
    target.last.reject(new Error('connection reset'));
    await settle(); // now waiting out the 200 ms back-off
    sender.close();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(target.calls).toHaveLength(1);
  });

  // Regression: drained() used to resolve after close(), as if the dropped steps had been applied.
  it('does not report a closed channel as drained', async () => {
    const target = new ManualTarget();
    const sender = new TransferSender(target.send);
    sender.push(step('a'));
    sender.push(step('b'));
    sender.close();
    await expect(sender.drained()).rejects.toThrow('transfer stopped');
  });
});
