import { rateBetween, sampleOf, sumByName } from './prometheus';

const METRICS = `# HELP collections_total number of collections
# TYPE collections_total gauge
collections_total 2
rest_responses_total{method="GET",endpoint="/collections",status="200"} 10
rest_responses_total{method="PUT",endpoint="/collections/{name}",status="200"} 5
rest_responses_duration_seconds_sum{method="GET",endpoint="/collections",status="200"} 0.2
rest_responses_duration_seconds_count{method="GET",endpoint="/collections",status="200"} 10
grpc_responses_total{endpoint="/qdrant.Points/Search"} 5
grpc_responses_duration_seconds_sum{endpoint="/qdrant.Points/Search"} 0.1
`;

describe('prometheus', () => {
  describe(sumByName.name, () => {
    it('should sum every series of a name and skip comments', () => {
      const sums = sumByName(METRICS);
      expect(sums.get('rest_responses_total')).toBe(15);
      expect(sums.get('collections_total')).toBe(2);
      expect(sums.has('# HELP collections_total')).toBe(false);
    });
  });

  describe(rateBetween.name, () => {
    it('should give requests per second and mean latency over the interval', () => {
      const first = sampleOf(METRICS, 0);
      expect(first).toEqual({ at: 0, responses: 20, durationSeconds: expect.closeTo(0.3, 9), collections: 2 });
      const second = { ...first, at: 2000, responses: 30, durationSeconds: 0.3 + 0.05 };
      const rate = rateBetween(first, second);
      expect(rate.perSecond).toBe(5);
      expect(rate.latencyMs).toBeCloseTo(5, 9);
    });

    it('should give zero latency when nothing was answered, and never a negative rate after a restart', () => {
      const first = sampleOf(METRICS, 0);
      expect(rateBetween(first, { ...first, at: 1000 })).toEqual({ at: 1000, perSecond: 0, latencyMs: 0 });
      expect(rateBetween(first, { ...first, at: 1000, responses: 1, durationSeconds: 0 }).perSecond).toBe(0);
    });
  });
});
