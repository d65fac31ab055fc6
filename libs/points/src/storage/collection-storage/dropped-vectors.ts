import { DomainError } from '@vectorstore/common';
import { LocalShard } from '../local-shard';
import { VectorSpace } from '../vector-space';

/**
 * Vector names dropped since start, with the segment builds running then (per shard): such a
 * build may still carry the old vectors, so the name is not created again before it ends.
 */
export class DroppedVectors {
  private readonly buildsAtDrop = new Map<string, Map<LocalShard, Set<string>>>();

  /** Notes the builds running now in `shards` as started before `name` was dropped. */
  remember(name: string, shards: Iterable<LocalShard>): void {
    const building = this.buildsAtDrop.get(name) ?? new Map<LocalShard, Set<string>>();
    for (const shard of shards) {
      const ids = building.get(shard) ?? new Set<string>();
      for (const id of shard.buildsInProgress()) ids.add(id);
      building.set(shard, ids);
    }
    this.buildsAtDrop.set(name, building);
  }

  has(name: string): boolean {
    return this.buildsAtDrop.has(name);
  }

  /** Waits (up to `maxWaitMs`) until the builds that were running when `name` was dropped have ended. */
  async waitForBuilds(name: string, maxWaitMs: number): Promise<void> {
    const building = this.buildsAtDrop.get(name);
    if (!building) return;
    const deadline = Date.now() + maxWaitMs;
    for (const [shard, ids] of building) {
      // only the builds that were running at the drop; later ones (such as the config-mismatch
      // rebuilds the drop itself causes) were planned without the name
      while (!shard.isClosed && [...ids].some((id) => shard.isBuilding(id))) {
        if (Date.now() > deadline) {
          throw DomainError.failedPrecondition(
            `Segment optimizations that started before vector \`${name}\` was deleted are still running; retry once they finish`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  forget(name: string): void {
    this.buildsAtDrop.delete(name);
  }
}

/** Names of `previous` spaces whose stored vectors a change to `next` drops: gone, or of another shape. */
export function vectorsDroppedBy(previous: Map<string, VectorSpace>, next: Map<string, VectorSpace>): string[] {
  return [...previous].filter(([name, space]) => !sameVectorSchema(space, next.get(name))).map(([name]) => name);
}

/** Whether `next` stores the same vectors as `space` (index settings aside); false when it is gone. */
function sameVectorSchema(space: VectorSpace, next: VectorSpace | undefined): boolean {
  if (!next || next.kind !== space.kind) return false;
  if (space.kind === 'sparse' || next.kind === 'sparse') return true;
  return space.dim === next.dim && space.distance === next.distance && space.datatype === next.datatype;
}
