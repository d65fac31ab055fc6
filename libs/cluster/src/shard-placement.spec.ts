import { CatalogState, CollectionRecord, emptyCatalog } from '@vectorstore/collections';
import { placeShards } from './shard-placement';

function catalogWith(shardPeers: string[]): CatalogState {
  const state = emptyCatalog();
  state.collections.set('c', {
    name: 'c',
    shards: shardPeers.map((peerId, shardId) => ({ shardId, state: 'Active', peerId })),
  } as unknown as CollectionRecord);
  return state;
}

describe('placeShards', () => {
  it('should spread new shards over every live peer, one each first', () => {
    expect(placeShards(3, emptyCatalog(), ['30', '10', '20'])).toEqual([['10'], ['20'], ['30']]);
  });

  it('should go round the peers again when there are more shards than peers', () => {
    expect(placeShards(5, emptyCatalog(), ['1', '2'])).toEqual([['1'], ['2'], ['1'], ['2'], ['1']]);
  });

  it('should put new shards on the least-loaded peers first', () => {
    const state = catalogWith(['1', '1', '2']);

    expect(placeShards(2, state, ['1', '2', '3'])).toEqual([['3'], ['2']]);
  });

  it('should order peer ids as numbers, not text', () => {
    expect(placeShards(2, emptyCatalog(), ['10', '9'])).toEqual([['9'], ['10']]);
  });

  it('should place only on the requested peers', () => {
    expect(placeShards(3, emptyCatalog(), ['1', '2', '3'], ['3'])).toEqual([['3'], ['3'], ['3']]);
  });

  it('should refuse a placement naming a peer that is not live', () => {
    expect(() => placeShards(1, emptyCatalog(), ['1', '2'], ['2', '7'])).toThrow(
      'placement names peers that are not live members of the cluster: 7',
    );
  });

  it('should refuse to place shards with no live peer', () => {
    expect(() => placeShards(1, emptyCatalog(), [])).toThrow('no live peer');
  });

  it('should put the replicas of one shard on distinct peers, least-loaded first, capped at the candidates', () => {
    expect(placeShards(2, emptyCatalog(), ['1', '2', '3'], undefined, 2)).toEqual([
      ['1', '2'],
      ['3', '1'],
    ]);
    expect(placeShards(1, emptyCatalog(), ['1', '2'], undefined, 3)).toEqual([['1', '2']]);
  });
});
