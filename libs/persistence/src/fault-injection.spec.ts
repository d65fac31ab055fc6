import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFileAtomic } from './atomic-file';
import { durableFs } from './durable-fs';
import { FileOp, injectFaults, InjectedCrashError, stopFaultInjection } from './fault-injection';

describe('fault injection over durableFs', () => {
  let dir: string;
  let outside: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-faults-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-faults-outside-'));
  });

  afterEach(() => {
    stopFaultInjection();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  const leftovers = (): string[] => fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'));

  it('should count each operation of an atomic write, by kind, under its root only', async () => {
    const injector = injectFaults({ root: dir, trace: true });

    await writeFileAtomic(path.join(dir, 'a.json'), 'one');
    await writeFileAtomic(path.join(outside, 'b.json'), 'two');

    expect(injector.trace.map((op) => op.kind)).toEqual(['create', 'write', 'fsync', 'rename', 'fsync']);
    expect(injector.count).toBe(5);
    expect(injector.counts).toMatchObject({ create: 1, write: 1, fsync: 2, rename: 1, remove: 0 });
    expect(injector.trace[4].path).toBe(dir);
    expect(injector.fired).toBe(false);
  });

  it('should count only the kinds asked for', async () => {
    const injector = injectFaults({ root: dir, kinds: ['fsync', 'rename'] });
    await writeFileAtomic(path.join(dir, 'a.json'), 'one');
    expect(injector.count).toBe(3);
  });

  it.each([1, 2, 3, 4])('should fail operation %i of an atomic write with EIO, keeping the old content', async (at) => {
    const file = path.join(dir, 'a.json');
    fs.writeFileSync(file, 'old');
    const injector = injectFaults({ root: dir, at, action: 'fail' });

    const error = (await writeFileAtomic(file, 'new').catch((e: unknown) => e)) as NodeJS.ErrnoException;

    expect(error.code).toBe('EIO');
    expect(error.message).toMatch(/^EIO: i\/o error \(injected\), \w+ '/);
    expect(injector.failed).toBe(1);
    expect(fs.readFileSync(file, 'utf8')).toBe('old');
    expect(leftovers()).toEqual([]);
  });

  it('should fail every write with ENOSPC until stopped, then write again', async () => {
    const file = path.join(dir, 'a.json');
    injectFaults({ root: dir, at: 1, action: 'fail', code: 'ENOSPC', times: Infinity, kinds: ['write'] });

    for (let i = 0; i < 3; i++) {
      const error = (await writeFileAtomic(file, 'x').catch((e: unknown) => e)) as NodeJS.ErrnoException;
      expect(error.code).toBe('ENOSPC');
      expect(error.syscall).toBe('write');
      expect(error.errno).toBe(-os.constants.errno.ENOSPC);
    }
    stopFaultInjection();
    await writeFileAtomic(file, 'x');

    expect(fs.readFileSync(file, 'utf8')).toBe('x');
    expect(leftovers()).toEqual([]);
  });

  it('should not count a recursive mkdir of a folder that exists: it changes nothing a fault could hit', async () => {
    fs.mkdirSync(path.join(dir, 'there'));
    const injector = injectFaults({ root: dir, at: 1, action: 'fail', code: 'ENOSPC', times: Infinity, trace: true });

    await durableFs.mkdir(path.join(dir, 'there'), { recursive: true });
    await expect(durableFs.mkdir(path.join(dir, 'new'), { recursive: true })).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(durableFs.mkdir(path.join(dir, 'there'))).rejects.toMatchObject({ code: 'ENOSPC' });

    expect(injector.trace.map((op) => path.basename(op.path))).toEqual(['new', 'there']);
  });

  it('should crash at the chosen operation: it does not run, and every later one under the root fails', async () => {
    const file = path.join(dir, 'a.json');
    fs.writeFileSync(file, 'old');
    const crashes: FileOp[] = [];
    let seenAtCrash: string[] = [];
    injectFaults({
      root: dir,
      at: 4,
      action: 'crash',
      onCrash: (op) => {
        crashes.push(op);
        seenAtCrash = fs.readdirSync(dir);
      },
    });

    const error = await writeFileAtomic(file, 'new').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InjectedCrashError);
    expect(crashes).toEqual([
      {
        n: 4,
        kind: 'rename',
        path: expect.stringMatching(/\.a\.json\.\d+\.\w+\.tmp$/),
        to: path.join(dir, 'a.json'),
      },
    ]);
    // The crash left the temporary file (the removal after the failure is refused too), as a real one would.
    expect(seenAtCrash.filter((name) => name.endsWith('.tmp'))).toHaveLength(1);
    expect(leftovers()).toHaveLength(1);
    expect(fs.readFileSync(file, 'utf8')).toBe('old');
    await expect(durableFs.mkdir(path.join(dir, 'later'))).rejects.toBeInstanceOf(InjectedCrashError);
    await expect(durableFs.rm(file, { force: true })).rejects.toBeInstanceOf(InjectedCrashError);
    // Outside the root nothing changes.
    await writeFileAtomic(path.join(outside, 'b.json'), 'fine');
    expect(fs.readFileSync(path.join(outside, 'b.json'), 'utf8')).toBe('fine');
  });

  it('should tear a write it crashes at when asked: half its bytes reach the file', async () => {
    const file = path.join(dir, 'log');
    const handle = await durableFs.open(file, 'w');
    try {
      injectFaults({ root: dir, at: 1, action: 'crash', tornWrite: true });
      await expect(durableFs.writeAll(handle, Buffer.from('0123456789'), 0)).rejects.toBeInstanceOf(InjectedCrashError);
    } finally {
      await handle.close();
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('01234');
  });

  it('should count each entry of a recursive removal, so a crash stops it half-way', async () => {
    fs.mkdirSync(path.join(dir, 'tree', 'sub'), { recursive: true });
    for (const name of ['a', 'b', 'sub/c']) fs.writeFileSync(path.join(dir, 'tree', name), name);
    injectFaults({ root: dir, at: 3, action: 'crash' });

    await expect(durableFs.rm(path.join(dir, 'tree'), { recursive: true, force: true })).rejects.toBeInstanceOf(
      InjectedCrashError,
    );
    stopFaultInjection();

    // Two of the five removals (three files, two folders) ran before the crash: two of the four entries went.
    const left = fs.readdirSync(path.join(dir, 'tree'), { recursive: true });
    expect(left.length).toBe(2);
    await durableFs.rm(path.join(dir, 'tree'), { recursive: true, force: true });
    expect(fs.existsSync(path.join(dir, 'tree'))).toBe(false);
  });

  it('should copy a tree durably, counting each copy, fsync and folder', async () => {
    fs.mkdirSync(path.join(dir, 'from', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'from', 'a'), 'A');
    fs.writeFileSync(path.join(dir, 'from', 'sub', 'b'), 'B');
    const injector = injectFaults({ root: dir });

    await durableFs.copyTree(path.join(dir, 'from'), path.join(dir, 'to'));

    expect(fs.readFileSync(path.join(dir, 'to', 'a'), 'utf8')).toBe('A');
    expect(fs.readFileSync(path.join(dir, 'to', 'sub', 'b'), 'utf8')).toBe('B');
    // 2 folders made, 2 files copied, 2 file and 3 folder fsyncs (to/sub, to, and to's parent)
    expect(injector.counts).toMatchObject({ mkdir: 2, copy: 2, fsync: 5 });
  });

  it('should name the target of a rename and show each operation about to run, but not the one crashed at', async () => {
    const seen: FileOp[] = [];
    const target = path.join(dir, 'a.json');
    const injector = injectFaults({
      root: dir,
      at: 4,
      action: 'crash',
      trace: true,
      // what the file holds as it is fsynced: what a power cut would keep
      onOp: (op) => seen.push({ ...op, ...(op.kind === 'fsync' ? { to: fs.readFileSync(op.path, 'utf8') } : {}) }),
    });

    await expect(writeFileAtomic(target, 'one')).rejects.toThrow(InjectedCrashError);

    expect(seen.map((op) => op.kind)).toEqual(['create', 'write', 'fsync']);
    expect(seen[2].to).toBe('one');
    expect(injector.trace[3]).toMatchObject({ kind: 'rename', to: target });
  });

  it('should refuse a second injector while one is on', () => {
    injectFaults({ root: dir });
    expect(() => injectFaults({ root: dir })).toThrow(/already on/);
  });

  it('should do nothing when no injector is on', async () => {
    const file = path.join(dir, 'a.json');
    await writeFileAtomic(file, 'plain');
    await durableFs.rm(file);
    expect(fs.existsSync(file)).toBe(false);
  });
});
