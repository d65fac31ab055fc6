import { DomainError, ErrorKind } from '@vectorstore/common';
import { QueryRequest } from '../model/query.model';
import { Segment } from '../storage/segment';
import { setSearchOffload } from '../storage/vectors/search-offload';
import { CollectionContexts } from './collection-context';
import { QueryEngine } from './query-engine';
import { openQueryEngine, QueryEngineFixture } from './query-engine.spec-helper';

const DIM = 32;
const vec = (seed: number) => Float32Array.from({ length: DIM }, (_, i) => Math.sin(seed * 7.1 + i * 0.3));
const dense = (v: Float32Array) => ({ kind: 'dense' as const, values: v });
const request = (over: Partial<QueryRequest>): QueryRequest => ({
  prefetch: [],
  query: { nearest: { vector: dense(vec(0.5)) } },
  limit: 5,
  offset: 0,
  withPayload: { enable: true },
  withVectors: { enable: false },
  params: { exact: true },
  ...over,
});

// queryAsync beside things that change under a worker search: found by review, kept as regressions.
describe('QueryEngine.queryAsync races', () => {
  let fixture: QueryEngineFixture;
  let contexts: CollectionContexts;
  let engine: QueryEngine;

  beforeAll(() => setSearchOffload('always'));
  afterAll(() => setSearchOffload('auto'));

  beforeEach(async () => {
    fixture = await openQueryEngine('vs-review-');
    ({ contexts, engine } = fixture);
    await fixture.collections.create({
      name: 'c',
      vectors: { params: { size: DIM, distance: 'Dot' } },
      quantizationConfig: { scalar: { type: 'Int8' } },
    } as never);
    const context = contexts.resolve('c');
    const shard = [...context.storage.shards.values()][0].shard;
    const built = Array.from({ length: 20000 }, (_, i) => ({
      id: BigInt(i + 1),
      vectors: { '': dense(vec(i + 1)) },
      payload: { n: i + 1 },
      version: 1,
    }));
    const seg = Segment.build(context.storage.spaces as never, built, [], 'built');
    const body = await seg.saveToDisk(shard.segmentsDir, { payloads: true, vectors: new Set() });
    await shard.swapSegments([], Segment.load(body, context.storage.spaces as never, shard.segmentsDir));
    seg.dispose();
  });

  afterEach(() => fixture.close());

  it('should answer a synchronous query beside a worker search while the quantizer is untrained', async () => {
    // The worker search ignores quantization, so it does not train the configured quantizer; the
    // synchronous one may not train it either (that would move memory the worker reads): it searches the
    // original vectors instead.
    const pending = engine.queryAsync('c', request({ params: { exact: true, quantization: { ignore: true } } }));
    expect(engine.query('c', request({ params: {} }))).toHaveLength(5);
    expect(await pending).toHaveLength(5);
  });

  it('should answer 404, not read closed files, when the collection is deleted while a worker search runs', async () => {
    expect(engine.query('c', request({}))).toHaveLength(5);
    // The worker search is held until the delete is committed, so the answer never depends on which of
    // the two finishes first on a loaded machine.
    let deleted!: () => void;
    const deleteCommitted = new Promise<void>((resolve) => (deleted = resolve));
    const shard = [...contexts.resolve('c').storage.shards.values()][0].shard;
    const search = shard.searchAsync.bind(shard);
    jest.spyOn(shard, 'searchAsync').mockImplementation(async (...args) => {
      const hits = await search(...args);
      await deleteCommitted;
      return hits;
    });
    const pending = engine.queryAsync('c', request({})).then(
      (points) => points,
      (error: unknown) => error,
    );
    await fixture.collections.delete('c');
    deleted();
    const answer = await pending;
    expect(answer).toBeInstanceOf(DomainError);
    expect((answer as DomainError).kind).toBe(ErrorKind.NotFound);
  });
});
