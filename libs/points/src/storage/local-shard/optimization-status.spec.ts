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
});
