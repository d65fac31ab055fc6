// npm run soak — SOAK_MINUTES (default 30) of mixed load from 16 clients against the built server, a table row per
// minute, exit code 1 with the reasons when RSS, open fds or the data folder keep growing after warm-up, segments pile up,
// the search p99 or the snapshot time drift by more than 2x (times the CPU share the run got), or any request fails.
// SOAK_MAX_OPS bounds the request count; SOAK_JSON names a file to write the samples and the verdict to.
// `npm run soak:short` is the 3-minute form (the e2e spec test/e2e/soak-short.e2e-spec.ts runs the same in npm test).
import { writeFileSync } from 'node:fs';
import { runSoak, soakOptions, tableHeader, tableRow } from './soak';

async function main(): Promise<number> {
  const minutes = Number(process.env.SOAK_MINUTES ?? 30);
  if (!(minutes > 0)) throw new Error(`SOAK_MINUTES must be a positive number, not ${process.env.SOAK_MINUTES}`);
  const overrides = process.env.SOAK_MAX_OPS ? { maxOps: Number(process.env.SOAK_MAX_OPS) } : {};
  const options = soakOptions(minutes, overrides);
  console.log(
    `soak: ${minutes} min, ${options.clients} clients (REST and gRPC), ${options.shape.dim}-d, ids in [0, ${options.shape.idSpace}), ` +
      `indexing_threshold ${options.indexingThresholdKb} KB, a snapshot every ${options.shape.snapshotEveryMs / 1000} s, ` +
      `warm-up ${options.limits.warmupSeconds} s, at most ${options.maxOps} requests`,
  );
  console.log(tableHeader());
  const result = await runSoak({
    ...options,
    onSample: (sample) => console.log(tableRow(sample, options.sampleSeconds)),
  });
  console.log(
    `${result.totalOps} requests after a fill of ${result.fillSeconds.toFixed(0)} s; ` +
      `default_segment_number ${result.segmentTarget}`,
  );
  for (const [message, count] of result.errorMessages) console.log(`error x${count}: ${message}`);
  if (process.env.SOAK_JSON) {
    const { samples, failures, totalOps, fillSeconds } = result;
    writeFileSync(
      process.env.SOAK_JSON,
      JSON.stringify({ minutes, limits: options.limits, samples, failures, totalOps, fillSeconds }),
    );
  }
  if (result.failures.length === 0) {
    console.log(
      'soak passed: RSS, open fds, segments and the data folder flat after warm-up, p99 and snapshot time within 2x',
    );
    return 0;
  }
  console.error(`the server's last output:\n${result.serverOutputTail}`);
  console.error(`soak FAILED:\n${result.failures.map((f) => `  - ${f}`).join('\n')}`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('soak could not run:', error);
    process.exit(2);
  },
);
