// The soak's short form (issue 28, item 7): `npm run soak` for SOAK_SHORT_MINUTES (default 2, so that with the
// fill and the server's start and stop the suite stays within CI's 3 minutes) against the built server, 16 clients of
// mixed load; fails when RSS, open fds, segments or the data folder keep growing after warm-up, search p99 or
// snapshot time drift more than 2x (times the CPU share the run got), or a request fails. The judge itself is
// specified on made-up runs in bench/soak/verdict.spec.ts.
import { runSoak, soakOptions, tableHeader, tableRow } from '../../bench/soak/soak';

const MINUTES = Number(process.env.SOAK_SHORT_MINUTES ?? 2);

jest.setTimeout((MINUTES + 3) * 60_000);

describe(`soak, short form: ${MINUTES} min of mixed load from 16 clients (e2e)`, () => {
  it('should keep RSS, open fds, segments and the data folder flat after warm-up, search p99 and snapshot time within 2x', async () => {
    const options = soakOptions(MINUTES);
    const rows = [tableHeader()];
    const result = await runSoak({ ...options, onSample: (s) => rows.push(tableRow(s, options.sampleSeconds)) });
    const errors = [...result.errorMessages].map(([message, count]) => `error x${count}: ${message}`);
    const tail = result.failures.length > 0 ? [`the server's last output:\n${result.serverOutputTail}`] : [];
    const summary = `${result.totalOps} requests after a fill of ${result.fillSeconds.toFixed(0)} s`;
    console.log([...rows, summary, ...errors, ...tail].join('\n'));

    // the load ran: every sample taken, snapshots made, the optimizer at work
    expect(result.samples.length).toBeGreaterThanOrEqual(Math.floor(options.seconds / options.sampleSeconds) - 1);
    expect(result.samples.some((s) => !Number.isNaN(s.snapshotSeconds))).toBe(true);
    expect(result.samples.reduce((sum, s) => sum + (s.jobs.indexing ?? 0) + (s.jobs.merge ?? 0), 0)).toBeGreaterThan(0);
    expect(result.failures).toEqual([]);
  });
});
