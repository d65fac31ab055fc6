import { ReadWriteLock } from './read-write-lock';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe(ReadWriteLock.name, () => {
  it('should run shared tasks together and an exclusive one alone, in arrival order', async () => {
    const lock = new ReadWriteLock();
    const log: string[] = [];
    let release1!: () => void;
    const first = lock.shared(() => new Promise<void>((resolve) => ((release1 = resolve), log.push('s1 start'))));
    const second = lock.shared(async () => void log.push('s2'));
    const writer = lock.exclusive(async () => void log.push('x'));
    // arrived after the exclusive task: must wait for it
    const third = lock.shared(async () => void log.push('s3'));
    await tick();
    expect(log).toEqual(['s1 start', 's2']);
    release1();
    await Promise.all([first, second, writer, third]);
    expect(log).toEqual(['s1 start', 's2', 'x', 's3']);
  });

  it('should release on failure', async () => {
    const lock = new ReadWriteLock();
    await expect(lock.exclusive(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(lock.shared(async () => 1)).resolves.toBe(1);
    await expect(lock.exclusive(async () => 2)).resolves.toBe(2);
  });
});
