import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { transferablesOf } from '../storage/segment-columns';
import { buildSegmentBytes, SegmentBuildJob } from './segment-builder';

const WORKER_FILE = path.join(__dirname, 'segment-builder.worker.js');

/** What the builder thread answers (segment-builder.worker.ts). */
export type SegmentBuildAnswer = { ok: true; bytes: Uint8Array } | { ok: false; message: string };

/**
 * Runs a build on a worker thread when the compiled worker is there (the built server), otherwise
 * on this thread (tests running from TypeScript sources). A builder thread that fails or dies (an uncaught
 * error, out of memory, one of its own engine workers dying) rejects with why; the thread is always stopped, and
 * the optimizer tries the job again later. `workerFile`: another builder, for tests.
 */
export async function runSegmentBuild(job: SegmentBuildJob, workerFile = WORKER_FILE): Promise<Uint8Array> {
  if (!existsSync(workerFile)) {
    await new Promise((resolve) => setImmediate(resolve));
    return await buildSegmentBytes(job);
  }
  const worker = new Worker(workerFile);
  try {
    return await new Promise<Uint8Array>((resolve, reject) => {
      worker.once('message', (message: SegmentBuildAnswer) =>
        message.ok ? resolve(message.bytes) : reject(new Error(`segment build failed: ${message.message}`)),
      );
      worker.once('error', (error: Error) =>
        reject(new Error(`segment builder thread failed: ${error.message}`, { cause: error })),
      );
      worker.once('exit', (code) =>
        reject(new Error(`segment builder thread exited with code ${code} before answering`)),
      );
      worker.postMessage(job, transferablesOf(job.columns));
    });
  } finally {
    await worker.terminate();
  }
}
