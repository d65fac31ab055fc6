import { DomainError } from '@vectorstore/common';
import { DEFAULT_COMPLETED_LIMIT, optimizationsOptions } from './optimizations.reporter';

describe('optimizationsOptions', () => {
  it("should read Qdrant's comma list, with blanks and empty items ignored", () => {
    expect(optimizationsOptions(undefined)).toEqual({ queued: false, idleSegments: false });
    expect(optimizationsOptions('queued ,  completed  , idle_segments,')).toEqual({
      queued: true,
      completedLimit: DEFAULT_COMPLETED_LIMIT,
      idleSegments: true,
    });
    expect(optimizationsOptions('completed', 3)).toEqual({ queued: false, completedLimit: 3, idleSegments: false });
    // completed_limit without `completed` lists nothing.
    expect(optimizationsOptions('queued', 3)).toEqual({ queued: true, idleSegments: false });
  });

  it('should refuse an unknown field with 400 naming it', () => {
    expect(() => optimizationsOptions('queued,running')).toThrow(DomainError);
    expect(() => optimizationsOptions('queued,running')).toThrow("Unknown field in 'with' parameter: running");
  });
});
