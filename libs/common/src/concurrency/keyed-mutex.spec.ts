import { KeyedMutex } from './keyed-mutex';

/** A promise resolved from outside, to control when a task finishes. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe(KeyedMutex.name, () => {
  describe('run', () => {
    it('should return the task result', async () => {
      await expect(new KeyedMutex().run('k', async () => 42)).resolves.toBe(42);
    });

    it('should run tasks of one key one at a time in arrival order', async () => {
      const mutex = new KeyedMutex();
      const events: string[] = [];
      const gates = [deferred(), deferred(), deferred()];
      let running = 0;
      let maxRunning = 0;

      const results = gates.map((gate, i) =>
        mutex.run('k', async () => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          events.push(`start ${i}`);
          await gate.promise;
          events.push(`end ${i}`);
          running--;
          return i;
        }),
      );
      await flush();
      expect(events).toEqual(['start 0']);

      // Release out of order: a later task must still wait for the earlier one.
      gates[2].resolve();
      gates[1].resolve();
      await flush();
      expect(events).toEqual(['start 0']);

      gates[0].resolve();
      await expect(Promise.all(results)).resolves.toEqual([0, 1, 2]);
      expect(events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
      expect(maxRunning).toBe(1);
    });

    it('should run tasks of different keys concurrently', async () => {
      const mutex = new KeyedMutex();
      const gateA = deferred();
      const started: string[] = [];

      const a = mutex.run('a', async () => {
        started.push('a');
        await gateA.promise;
      });
      const b = mutex.run('b', async () => {
        started.push('b');
      });

      await b;
      expect(started).toEqual(['a', 'b']);

      gateA.resolve();
      await a;
    });

    it('should continue with the next task after a rejected one', async () => {
      const mutex = new KeyedMutex();

      const failing = mutex.run('k', async () => {
        throw new Error('boom');
      });
      const next = mutex.run('k', async () => 'after');

      await expect(failing).rejects.toThrow('boom');
      await expect(next).resolves.toBe('after');
    });

    it('should start the next task only after a rejected task has settled', async () => {
      const mutex = new KeyedMutex();
      const gate = deferred();
      const events: string[] = [];

      const failing = mutex.run('k', async () => {
        await gate.promise;
        events.push('fail');
        throw new Error('boom');
      });
      const next = mutex.run('k', async () => {
        events.push('next');
      });
      await flush();
      expect(events).toEqual([]);

      gate.resolve();
      await expect(failing).rejects.toThrow('boom');
      await next;
      expect(events).toEqual(['fail', 'next']);
    });

    it('should keep working for a key after its queue drained', async () => {
      const mutex = new KeyedMutex();
      await mutex.run('k', async () => 1);
      await flush();

      await expect(mutex.run('k', async () => 2)).resolves.toBe(2);
    });
  });
});
