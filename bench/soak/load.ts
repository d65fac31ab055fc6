import { Rng } from '../../test/support/seeded-random';
import { SoakClient, SoakPoint } from './clients';
import { LatencyWindow } from './latency';

/** The shape of the load: a closed loop per client (each sends its next request when the last one answered). */
export interface LoadShape {
  dim: number;
  /** Point ids are drawn from [0, idSpace): upserts overwrite, deletes remove, so the collection stays bounded. */
  idSpace: number;
  upsertBatch: number;
  /** Milliseconds between snapshot creations (the first client free at that moment makes it). */
  snapshotEveryMs: number;
}

export const KINDS = ['red', 'green', 'blue', 'cyan', 'magenta', 'yellow', 'black', 'white'];

/** Relative weights of the operations a client picks from (a snapshot is made on its own clock instead). */
const MIX: Array<[Operation, number]> = [
  ['upsert', 30],
  ['delete', 8],
  ['setPayload', 10],
  ['search', 37],
  ['scroll', 15],
];
type Operation = 'upsert' | 'delete' | 'setPayload' | 'search' | 'scroll';

/** What the clients did, per sampling interval; the sampler drains it. */
export class LoadStats {
  readonly searches = new LatencyWindow();
  readonly writes = new LatencyWindow();
  ops = 0;
  totalOps = 0;
  errors = 0;
  /** The first few distinct error messages, with a count each. */
  readonly errorMessages = new Map<string, number>();
  snapshotSeconds: number[] = [];
  snapshotBytes: number[] = [];

  failed(operation: string, error: unknown): void {
    this.errors++;
    const text = `${operation}: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300);
    if (this.errorMessages.has(text) || this.errorMessages.size < 20) {
      this.errorMessages.set(text, (this.errorMessages.get(text) ?? 0) + 1);
    }
  }
}

/** Runs every client until `deadline` or until the clients together made `maxOps` requests. */
export async function runLoad(
  clients: readonly SoakClient[],
  shape: LoadShape,
  stats: LoadStats,
  limits: { deadline: number; maxOps: number },
): Promise<void> {
  const clock = { nextSnapshotAt: Date.now() + shape.snapshotEveryMs, snapshotRunning: false };
  const done = () => Date.now() >= limits.deadline || stats.totalOps >= limits.maxOps;
  await Promise.all(
    clients.map(async (client, index) => {
      const rng = new Rng(1000 + index);
      while (!done()) {
        if (!clock.snapshotRunning && Date.now() >= clock.nextSnapshotAt) {
          clock.snapshotRunning = true;
          const started = performance.now();
          try {
            const bytes = await client.snapshot();
            stats.snapshotSeconds.push((performance.now() - started) / 1000);
            stats.snapshotBytes.push(bytes);
          } catch (error) {
            stats.failed(`snapshot (${client.transport})`, error);
          } finally {
            clock.snapshotRunning = false;
            clock.nextSnapshotAt = Date.now() + shape.snapshotEveryMs;
          }
          continue;
        }
        const operation = pick(rng);
        const started = performance.now();
        try {
          await perform(client, operation, rng, shape);
          const ms = performance.now() - started;
          if (operation === 'search') stats.searches.record(ms);
          else if (operation !== 'scroll') stats.writes.record(ms);
        } catch (error) {
          stats.failed(`${operation} (${client.transport})`, error);
        }
        stats.ops++;
        stats.totalOps++;
      }
    }),
  );
}

/** Writes every id of the id space once, `batch` points a request, so the load starts on a full collection. */
export async function fillCollection(client: SoakClient, shape: LoadShape, batch = 1000): Promise<void> {
  const rng = new Rng(7);
  for (let from = 0; from < shape.idSpace; from += batch) {
    const ids = Array.from({ length: Math.min(batch, shape.idSpace - from) }, (_, i) => from + i);
    await client.upsert(ids.map((id) => randomPoint(rng, id, shape)));
  }
}

function randomPoint(rng: Rng, id: number, shape: LoadShape): SoakPoint {
  return { id, vector: unitVector(rng, shape.dim), kind: KINDS[rng.below(KINDS.length)], n: rng.below(100_000) };
}

function pick(rng: Rng): Operation {
  const total = MIX.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = rng.below(total);
  for (const [operation, weight] of MIX) {
    if (roll < weight) return operation;
    roll -= weight;
  }
  return 'search';
}

async function perform(client: SoakClient, operation: Operation, rng: Rng, shape: LoadShape): Promise<void> {
  const ids = (count: number) => Array.from({ length: count }, () => rng.below(shape.idSpace));
  switch (operation) {
    case 'upsert': {
      return client.upsert([...new Set(ids(shape.upsertBatch))].map((id) => randomPoint(rng, id, shape)));
    }
    case 'delete':
      return client.deletePoints([...new Set(ids(8))]);
    case 'setPayload':
      // about 8 points: `n` is uniform in [0, 100 000) over ~17 000 live points
      return client.setPayload(rng.below(100_000), 50, `note-${rng.below(1_000_000)}`);
    case 'search':
      await client.search(unitVector(rng, shape.dim), KINDS[rng.below(KINDS.length)]);
      return;
    case 'scroll':
      await client.scroll(rng.below(100_000), 500);
      return;
  }
}

function unitVector(rng: Rng, dim: number): number[] {
  const vector = Array.from({ length: dim }, () => rng.float(-1, 1));
  const norm = Math.hypot(...vector) || 1;
  return vector.map((v) => v / norm);
}
