import { Gauge, Registry } from 'prom-client';
import { SERVER_VERSION } from '../../version';

export interface CollectionCounts {
  name: string;
  points: number;
  indexedVectors: number;
}

/**
 * Qdrant's node metrics in Prometheus text: app info, collections, and points and indexed vectors
 * per collection (label `id`, as Qdrant names the collection), followed by the request metrics.
 */
export async function renderMetrics(collections: CollectionCounts[], requestMetrics: Registry): Promise<string> {
  const registry = new Registry();
  const registers = [registry];
  new Gauge({
    name: 'app_info',
    help: 'information about qdrant server',
    labelNames: ['name', 'version'],
    registers,
  }).set({ name: 'qdrant', version: SERVER_VERSION }, 1);
  new Gauge({ name: 'collections_total', help: 'number of collections', registers }).set(collections.length);
  const points = new Gauge({
    name: 'collection_points',
    help: 'approximate amount of points per collection',
    labelNames: ['id'],
    registers,
  });
  const vectors = new Gauge({
    name: 'collection_indexed_vectors',
    help: 'amount of vectors in the vector indexes per collection',
    labelNames: ['id'],
    registers,
  });
  for (const collection of collections) {
    points.set({ id: collection.name }, collection.points);
    vectors.set({ id: collection.name }, collection.indexedVectors);
  }
  return `${await registry.metrics()}\n${await requestMetrics.metrics()}`;
}
