import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CollectionsModule, CollectionsService } from '@vectorstore/collections';
import { DomainError, ErrorKind } from '@vectorstore/common';
import {
  COLLECTION_STATS_GATHERER,
  type CollectionStatsGatherer,
  POINTS_CLUSTER,
  PointsModule,
  PointsWriter,
  VectorNameOperations,
} from '@vectorstore/points';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PointsPeers } from './points-peers';
import { ReadRouter } from './read-router';
import { ReplicationModule } from './replication.module';

const dense = (...values: number[]) => ({ kind: 'dense' as const, values: Float32Array.from(values) });

/** The modules as the app wires them: points' services see the cluster only through the ports bound here. */
describe(ReplicationModule.name, () => {
  let dir: string;
  let app: INestApplicationContext;

  const start = async (peers?: PointsPeers) => {
    app = await NestFactory.createApplicationContext(
      {
        module: class Root {},
        imports: [
          CollectionsModule.forRoot({ dataDir: dir }),
          PointsModule.forRoot({ dataDir: dir }),
          ReplicationModule.forRoot(peers ? { peers } : {}),
        ],
      },
      { logger: false },
    );
    await app.get(CollectionsService).create({
      name: 'c',
      vectors: { paramsMap: { a: { size: 2, distance: 'Dot' } } },
      shardNumber: 2,
    });
  };
  const upsert = (...ids: number[]) =>
    app.get(PointsWriter).update('c', {
      operation: {
        upsert: { points: ids.map((id) => ({ id: BigInt(id), vectors: { a: dense(id, 1) }, payload: {} })) },
      },
      wait: true,
    });
  const deleteName = () => app.get(VectorNameOperations).delete({ collectionName: 'c', vectorName: 'a' }, true);

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-replication-module-'));
  });

  afterEach(async () => {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('should leave points standalone without peers: local writes and stats, vector names deleted', async () => {
    await start();
    expect(() => app.get(POINTS_CLUSTER)).toThrow();
    expect(() => app.get(COLLECTION_STATS_GATHERER)).toThrow();
    await upsert(1, 2, 3);
    expect((await app.get(CollectionsService).describe('c')).pointsCount).toBe(3);
    expect(await app.get(ReadRouter).count('c', { exact: true })).toBe(3);
    expect(await deleteName()).toBe('Completed');
  });

  it('should bind the cluster ports with peers: lease checked on writes, stats gathered, vector names deleted', async () => {
    let writable = true;
    const peers: PointsPeers = {
      selfId: 'self',
      assertWritable: jest.fn(() => {
        if (!writable) throw DomainError.unavailable('Service unavailable: lease expired');
      }),
      update: () => Promise.reject(new Error('no other peer')),
      read: () => Promise.reject(new Error('no other peer')),
      transferApply: () => Promise.reject(new Error('no other peer')),
      checksum: () => Promise.reject(new Error('no other peer')),
      recoveryPoint: () => Promise.reject(new Error('no other peer')),
      incarnation: 'test',
    };
    await start(peers);
    await upsert(1, 2);
    expect(peers.assertWritable).toHaveBeenCalled();
    // Every shard is this peer's: the gatherer plans them all here.
    const gather = jest.spyOn(app.get<CollectionStatsGatherer>(COLLECTION_STATS_GATHERER), 'gather');
    expect((await app.get(CollectionsService).describe('c')).pointsCount).toBe(2);
    expect(gather).toHaveBeenCalledTimes(1);
    // Cluster mode deletes a vector name in two phases; with no replica on a peer nothing waits.
    expect(await deleteName()).toBe('Completed');
    writable = false;
    await expect(upsert(3)).rejects.toMatchObject({ kind: ErrorKind.Unavailable });
    expect(await app.get(ReadRouter).count('c', { exact: true })).toBe(2);
  });
});
