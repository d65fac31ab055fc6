// Worker thread entry: builds one segment off the main thread, so searches and writes keep flowing.
import { parentPort } from 'node:worker_threads';
import { buildSegmentBytes, SegmentBuildJob } from './segment-builder';

parentPort?.on('message', (job: SegmentBuildJob) => {
  buildSegmentBytes(job).then(
    (bytes) => parentPort?.postMessage({ ok: true, bytes }, [bytes.buffer as ArrayBuffer]),
    (error: unknown) =>
      parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) }),
  );
});
