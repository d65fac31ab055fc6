import { type UmapOptions, umapOptionProblems } from './umap-options';

const OPTIONS: UmapOptions = { nNeighbors: 15, minDist: 0.1, seed: 7 };

describe('umapOptionProblems', () => {
  it.each([
    [{ nNeighbors: 1 }, { nNeighbors: 'A whole number from 2 to 200' }],
    [{ nNeighbors: 2.5 }, { nNeighbors: 'A whole number from 2 to 200' }],
    [{ minDist: -0.1 }, { minDist: 'A number from 0 to 1' }],
    [{ minDist: NaN }, { minDist: 'A number from 0 to 1' }],
    [
      { seed: -1, nEpochs: 1.5 },
      { seed: 'A whole number from 0 to 4294967295', nEpochs: 'A whole number, 0 for the default' },
    ],
    [{}, {}],
    [{ nNeighbors: 2, minDist: 0, seed: 0 }, {}],
    [{ nNeighbors: 200, minDist: 1, seed: 4294967295 }, {}],
  ])('%j: %j', (change, problems) => {
    expect(umapOptionProblems({ ...OPTIONS, ...change })).toEqual(problems);
  });
});
