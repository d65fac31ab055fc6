import { OptimizationStatus } from './optimization-status';

describe(OptimizationStatus.name, () => {
  describe('jobStats', () => {
    it('should count ended and failed jobs, their duration and optimized points', () => {
      const status = new OptimizationStatus();
      expect(status.jobStats).toEqual({ count: 0, failCount: 0, totalMicros: 0 });

      status.jobStarted();
      status.jobSucceeded(40);
      status.jobEnded(1500);
      status.jobStarted();
      status.jobFailed('disk full');
      status.jobEnded(500);

      expect(status.running).toBe(0);
      expect(status.optimizedPoints).toBe(40);
      expect(status.error).toBe('disk full');
      expect(status.jobStats).toEqual({
        count: 2,
        failCount: 1,
        totalMicros: 2000,
        lastEnded: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      });
    });
  });

  describe('tracked jobs', () => {
    const job = (uuid: string) => ({ uuid, optimizer: 'indexing', segments: [{ uuid: `s-${uuid}`, pointsCount: 3 }] });

    it('should list running jobs, then ended ones newest first with their outcome', () => {
      const status = new OptimizationStatus();
      status.jobStarted(job('a'));
      status.jobStarted(job('b'));
      status.jobStarted(job('c'));
      expect(status.runningJobs.map((j) => [j.uuid, j.status])).toEqual([
        ['a', 'optimizing'],
        ['b', 'optimizing'],
        ['c', 'optimizing'],
      ]);
      status.jobSucceeded(3, 'a');
      status.jobEnded(10, 'a');
      status.jobFailed('disk full', 'b');
      status.jobEnded(10, 'b');
      status.jobEnded(10, 'c');
      expect(status.runningJobs).toEqual([]);
      expect(status.completedJobs.map((j) => [j.uuid, j.status])).toEqual([
        ['c', { cancelled: 'the shard was closed' }],
        ['b', { error: 'disk full' }],
        ['a', 'done'],
      ]);
      expect(status.completedJobs[0].finishedAt).toBeInstanceOf(Date);
    });

    it('should keep the last 64 ended jobs', () => {
      const status = new OptimizationStatus();
      for (let i = 0; i < 70; i++) {
        status.jobStarted(job(String(i)));
        status.jobSucceeded(1, String(i));
        status.jobEnded(1, String(i));
      }
      expect(status.completedJobs).toHaveLength(64);
      expect(status.completedJobs[0].uuid).toBe('69');
    });
  });
});
