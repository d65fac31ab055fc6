// Worker thread entry: builds one segment off the main thread, so searches and writes keep flowing.
import { parentPort } from 'node:worker_threads';
import type { SegmentBuildAnswer } from './segment-build-runner';
import { buildSegmentBytes, SegmentBuildJob } from './segment-builder';

parentPort?.on('message', (job: SegmentBuildJob) => {
  buildSegmentBytes(job).then(
    (bytes) => parentPort?.postMessage({ ok: true, bytes } satisfies SegmentBuildAnswer, [bytes.buffer as ArrayBuffer]),
    // the error's class when it says more than Error (EngineWorkersError: the engine's threads cannot start)
    (error: unknown) => {
      const message =
        error instanceof Error ? (error.name === 'Error' ? '' : `${error.name}: `) + error.message : String(error);
      parentPort?.postMessage({ ok: false, message } satisfies SegmentBuildAnswer);
    },
  );
});
