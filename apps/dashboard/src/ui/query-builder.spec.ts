import { buildQuery, EMPTY_QUERY, parseVectorInput, parseVectorInputs } from './query-builder';

describe('query-builder', () => {
  it('should read ids, dense, sparse and multi vectors', () => {
    expect(parseVectorInput('7')).toEqual({ value: 7 });
    expect(parseVectorInput('18446744073709551615')).toEqual({ value: 18446744073709551615n });
    expect(parseVectorInput('[0.5, 1]')).toEqual({ value: [0.5, 1] });
    expect(parseVectorInput('{"indices": [1], "values": [0.5]}')).toEqual({ value: { indices: [1], values: [0.5] } });
    expect(parseVectorInput('[[1, 2], [3, 4]]')).toEqual({
      value: [
        [1, 2],
        [3, 4],
      ],
    });
    expect(parseVectorInput('[1, "a"]').error).toMatch(/^A vector/);
    expect(parseVectorInput('').error).toBe('Required: a point id or a vector');
  });

  it('should read lists of examples: whole numbers as ids, fractions as one vector', () => {
    expect(parseVectorInputs('1, 5')).toEqual({ values: [1, 5] });
    expect(parseVectorInputs('[1, 5]')).toEqual({ values: [1, 5] });
    expect(parseVectorInputs('[0.5, 1]')).toEqual({ values: [[0.5, 1]] });
    expect(parseVectorInputs('[[0.5, 1], 7]')).toEqual({ values: [[0.5, 1], 7] });
    expect(parseVectorInputs('[0.5, 1]; 3')).toEqual({ values: [[0.5, 1], 3] });
    expect(parseVectorInputs('')).toEqual({ values: [] });
    expect(parseVectorInputs('x').error).toMatch(/^x: /);
  });

  it('should build each query form with the search params', () => {
    expect(
      buildQuery({
        ...EMPTY_QUERY,
        mode: 'recommend',
        positive: '1',
        negative: '2',
        strategy: 'best_score',
        limit: '3',
      }),
    ).toEqual({
      path: 'query',
      body: {
        query: { recommend: { positive: [1], negative: [2], strategy: 'best_score' } },
        limit: 3,
        with_payload: true,
        with_vector: true,
      },
    });
    expect(
      buildQuery({
        ...EMPTY_QUERY,
        mode: 'fusion',
        prefetch: '[{"query": 1}]',
        fusion: 'dbsf',
        exact: true,
        hnswEf: '32',
        scoreThreshold: '0.5',
        withVectors: false,
        groupBy: 'city',
        groupSize: '2',
      }),
    ).toEqual({
      path: 'query/groups',
      body: {
        prefetch: [{ query: 1 }],
        query: { fusion: 'dbsf' },
        limit: 10,
        params: { exact: true, hnsw_ef: 32 },
        score_threshold: 0.5,
        with_payload: true,
        with_vector: false,
        group_by: 'city',
        group_size: 2,
      },
    });
  });

  it('should name the fields whose syntax is wrong', () => {
    expect(buildQuery({ ...EMPTY_QUERY, input: '[1', limit: 'x', hnswEf: '1.5', filter: '[]' })).toEqual({
      errors: {
        query: expect.stringMatching(/^A vector/) as unknown,
        limit: 'A whole number',
        hnsw_ef: 'A whole number',
        filter: expect.stringMatching(/^A filter is a JSON object/) as unknown,
      },
    });
    expect(buildQuery({ ...EMPTY_QUERY, mode: 'context', context: '[{' })).toMatchObject({
      errors: { context: expect.stringMatching(/^Context pairs: invalid JSON/) as unknown },
    });
  });
});
