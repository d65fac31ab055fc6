import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { transferablesOf } from '../storage/segment-columns';
import { buildSegmentBytes, SegmentBuildJob } from './segment-builder';

const WORKER_FILE = path.join(__dirname, 'segment-builder.worker.js');

/**
 * Runs a build on a worker thread when the compiled worker is there (the built server), otherwise
 * on this thread (tests running from TypeScript sources).
 */
export async function runSegmentBuild(job: SegmentBuildJob): Promise<Uint8Array> {
  if (!existsSync(WORKER_FILE)) {
    await new Promise((resolve) => setImmediate(resolve));
    return await buildSegmentBytes(job);
  }
  const worker = new Worker(WORKER_FILE);
  try {
    return await new Promise<Uint8Array>((resolve, reject) => {
      worker.once('message', (message: { ok: true; bytes: Uint8Array } | { ok: false; message: string }) =>
        message.ok ? resolve(message.bytes) : reject(new Error(message.message)),
      );
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`segment builder exited with code ${code}`)));
      worker.postMessage(job, transferablesOf(job.columns));
    });
  } finally {
    await worker.terminate();
  }
}
