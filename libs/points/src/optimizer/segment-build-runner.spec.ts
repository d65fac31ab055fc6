import { promises as fs, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runSegmentBuild } from './segment-build-runner';
import { SegmentBuildJob } from './segment-builder';

// The builder thread as the optimizer sees it: whatever way the thread fails or dies, the build rejects with why
// (the optimizer records the error and tries the job again later) and the thread is gone; it never hangs.
describe(runSegmentBuild.name, () => {
  let dir: string;
  const job = {
    id: 'job',
    spaces: [],
    columns: { ids: [], versions: [], payloads: [], dense: [], other: [] },
  } as unknown as SegmentBuildJob;

  /** A builder thread whose message handler is `body` (plain JavaScript, `job` in scope). */
  async function builder(body: string): Promise<string> {
    const file = path.join(dir, `builder-${Math.random().toString(36).slice(2)}.js`);
    await fs.writeFile(file, `require('node:worker_threads').parentPort.on('message', (job) => { ${body} });`);
    return file;
  }

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vs-build-runner-'));
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('should resolve with the bytes the builder answers', async () => {
    const file = await builder(
      `require('node:worker_threads').parentPort.postMessage({ ok: true, bytes: new Uint8Array([7, job.id.length]) });`,
    );
    expect(Array.from(await runSegmentBuild(job, file))).toEqual([7, 3]);
  });

  it('should reject with the error the builder reports', async () => {
    const file = await builder(
      `require('node:worker_threads').parentPort.postMessage({ ok: false, message: 'engine: parallel build worker 0 failed: x' });`,
    );
    await expect(runSegmentBuild(job, file)).rejects.toThrow(
      'segment build failed: engine: parallel build worker 0 failed: x',
    );
  });

  it('should reject when the builder thread throws', async () => {
    const file = await builder(`throw new Error('boom');`);
    await expect(runSegmentBuild(job, file)).rejects.toThrow('segment builder thread failed: boom');
  });

  it('should reject when the builder thread exits without answering', async () => {
    const file = await builder(`process.exit(7);`);
    await expect(runSegmentBuild(job, file)).rejects.toThrow(
      'segment builder thread exited with code 7 before answering',
    );
  });

  it('should reject when the builder thread cannot start', async () => {
    const file = path.join(dir, 'broken.js');
    await fs.writeFile(file, 'this is not javascript (');
    await expect(runSegmentBuild(job, file)).rejects.toThrow(/segment builder thread failed: .*Unexpected/);
  });
});
