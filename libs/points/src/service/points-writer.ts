import { Injectable } from '@nestjs/common';
import { PAYLOAD_SCHEMA_TYPES } from '@vectorstore/collections';
import { DomainError, stringifyJson, ValidationIssues } from '@vectorstore/common';
import { validateFilter } from '../filter/filter-validation';
import { parsePath } from '../filter/payload-path';
import { UpdateOperation, UpdateRequest, UpdateResult, UpdateStatus } from '../model/operations.model';
import { PointId, pointIdKey } from '../model/point-id.model';
import { PointsSelector, ShardKeySelector } from '../model/selectors.model';
import { NamedVectors } from '../model/vectors.model';
import { validateIndexParams } from '../payload-index/field-index';
import { CollectionStorage, ShardHandle } from '../storage/collection-storage';
import { CollectionContext, CollectionContexts } from './collection-context';
import { checkNamedVectors, fitVectorKinds, throwVectorIssues } from './vector-validation';

/**
 * Writes to points. Each request is validated against the collection first (so the log only holds
 * valid operations), split per shard, logged durably and applied. `wait` changes only the status
 * reported: the operation is applied before the call returns either way.
 */
@Injectable()
export class PointsWriter {
  constructor(private readonly contexts: CollectionContexts) {}

  async update(collectionName: string, request: UpdateRequest): Promise<UpdateResult> {
    const [result] = await this.updateBatch(collectionName, [request.operation], request);
    return result;
  }

  /** Applies operations in order; each gets its own result. */
  async updateBatch(
    collectionName: string,
    operations: UpdateOperation[],
    options: {
      wait: boolean;
      timeout?: number;
      shardKeySelector?: ShardKeySelector;
      shardKeySelectors?: Array<ShardKeySelector | undefined>;
    },
  ): Promise<UpdateResult[]> {
    const context = this.contexts.resolve(collectionName);
    const results: UpdateResult[] = [];
    // Validated and applied under the shared side of the schema lock: a vector name cannot be
    // deleted or re-created between the check and the apply.
    const work = context.storage.schemaLock.shared(async () => {
      // Existence checks see the batch's own earlier upserts and deletes.
      const batch: BatchView = { created: new Set(), deleted: new Set() };
      operations = operations.map((operation) => fitVectorKinds(operation, context.storage.spaces));
      operations.forEach((operation, i) =>
        this.validate(context, operation, operations.length > 1 ? `operations[${i}].` : '', batch),
      );
      for (const [i, operation] of operations.entries()) {
        const opNum = await this.apply(
          context.storage,
          operation,
          options.shardKeySelectors?.[i] ?? options.shardKeySelector,
        );
        results.push({ operationId: opNum, status: options.wait ? 'Completed' : 'Acknowledged' });
      }
    });
    if (!options.wait || options.timeout === undefined) {
      await work;
      return results;
    }
    const timedOut = await Promise.race([work.then(() => false), delay(options.timeout * 1000).then(() => true)]);
    if (!timedOut) return results;
    // The operations keep going; the client is told it stopped waiting, as Qdrant does.
    void work.catch(() => undefined);
    const status: UpdateStatus = 'WaitTimeout';
    return operations.map((_, i) => results[i] ?? { operationId: 0, status });
  }

  private validate(context: CollectionContext, operation: UpdateOperation, prefix: string, batch: BatchView): void {
    const issues = new ValidationIssues();
    const spaces = context.storage.spaces;
    const strict = context.record.config.strictModeConfig;
    const guard = this.contexts.strict;
    const name = context.record.name;
    if ('upsert' in operation) {
      const { points, updateFilter } = operation.upsert;
      guard.checkWrite(name, strict, { batchSize: points.length, filter: updateFilter }, context.isIndexed);
      points.forEach((point, i) => {
        checkNamedVectors(issues, `${prefix}points[${i}].vectors`, spaces, point.vectors);
        this.checkVectorLimits(context, point.vectors);
      });
      if (updateFilter) validateFilter(updateFilter);
      this.checkCapacity(
        context,
        points.length,
        points.reduce((bytes, p) => bytes + Buffer.byteLength(stringifyJson(p.payload)), 0),
      );
      for (const point of points) {
        batch.created.add(pointIdKey(point.id));
        batch.deleted.delete(pointIdKey(point.id));
      }
    } else if ('updateVectors' in operation) {
      operation.updateVectors.points.forEach((point, i) => {
        // As in Qdrant, a point in an update of vectors must name at least one vector.
        if (Object.keys(point.vectors).length === 0)
          issues.add(`${prefix}points[${i}].vectors`, 'must specify vectors to update for point');
        checkNamedVectors(issues, `${prefix}points[${i}].vectors`, spaces, point.vectors);
        this.checkVectorLimits(context, point.vectors);
      });
      guard.checkWrite(name, strict, { filter: operation.updateVectors.updateFilter }, context.isIndexed);
      this.requireExisting(
        context,
        operation.updateVectors.points.map((p) => p.id),
        batch,
      );
    } else if ('deleteVectors' in operation) {
      for (const vectorName of operation.deleteVectors.vectorNames) {
        if (!spaces.has(vectorName))
          issues.add(`${prefix}vectors`, `Wrong input: Not existing vector name error: ${vectorName}`);
      }
      this.checkSelector(context, operation.deleteVectors.selector, batch);
    } else if ('deletePoints' in operation) {
      this.checkSelector(context, operation.deletePoints.selector, batch);
      const selector = operation.deletePoints.selector;
      if ('ids' in selector) {
        for (const id of selector.ids) {
          batch.deleted.add(pointIdKey(id));
          batch.created.delete(pointIdKey(id));
        }
      }
    } else if ('setPayload' in operation || 'overwritePayload' in operation) {
      const body = 'setPayload' in operation ? operation.setPayload : operation.overwritePayload;
      if (body.key !== undefined && parsePath(body.key).some((segment) => segment.kind !== 'key')) {
        issues.add(
          `${prefix}key`,
          `payload key \`${body.key}\` must be a path of object keys (no array indexes or [])`,
        );
      }
      this.checkSelector(context, body.selector, batch, true);
    } else if ('deletePayload' in operation) {
      operation.deletePayload.keys.forEach((key) => parsePath(key));
      this.checkSelector(context, operation.deletePayload.selector, batch, true);
    } else if ('clearPayload' in operation) {
      this.checkSelector(context, operation.clearPayload.selector, batch, true);
    } else if ('createFieldIndex' in operation) {
      const { field, type, params } = operation.createFieldIndex;
      parsePath(field);
      issues.oneOf(`${prefix}field_type`, type, PAYLOAD_SCHEMA_TYPES);
      if (params) validateIndexParams(type, params);
      const existing = [...context.storage.shards.values()][0]?.shard.fieldIndexes.size ?? 0;
      guard.checkCapacity(strict, { points: 0, vectorBytes: 0, payloadBytes: 0, payloadIndexes: existing + 1 });
    } else if ('deleteFieldIndex' in operation) {
      parsePath(operation.deleteFieldIndex.field);
    }
    throwVectorIssues(issues);
  }

  private checkSelector(
    context: CollectionContext,
    selector: PointsSelector,
    batch: BatchView,
    idsMustExist = false,
  ): void {
    if ('filter' in selector) {
      validateFilter(selector.filter);
      this.contexts.strict.checkWrite(
        context.record.name,
        context.record.config.strictModeConfig,
        { filter: selector.filter },
        context.isIndexed,
      );
    } else if (idsMustExist) {
      this.requireExisting(context, selector.ids, batch);
    }
  }

  /** Qdrant answers 404 when a write names a point that does not exist (payload and vector updates). */
  private requireExisting(context: CollectionContext, ids: readonly PointId[], batch: BatchView): void {
    for (const id of ids) {
      const key = pointIdKey(id);
      const stored =
        !batch.deleted.has(key) && [...context.storage.shards.values()].some((h) => h.shard.find(id) !== undefined);
      if (!stored && !batch.created.has(key))
        throw DomainError.notFound(`Not found: No point with id ${String(id)} found`);
    }
  }

  private checkVectorLimits(context: CollectionContext, vectors: NamedVectors): void {
    const strict = context.record.config.strictModeConfig;
    for (const [name, vector] of Object.entries(vectors)) {
      if (vector.kind === 'multi') this.contexts.strict.checkVectorLimits(strict, name, 'multi', vector.vectors.length);
      if (vector.kind === 'sparse')
        this.contexts.strict.checkVectorLimits(strict, name, 'sparse', vector.indices.length);
    }
  }

  /** Size limits count what the collection would hold after this write (upserts may replace points, so this errs high). */
  private checkCapacity(context: CollectionContext, addingPoints: number, addingPayloadBytes: number): void {
    const strict = context.record.config.strictModeConfig;
    if (!strict?.enabled) return;
    let points = addingPoints;
    let payloadBytes = addingPayloadBytes;
    let vectorBytes = 0;
    for (const handle of context.storage.shards.values()) {
      points += handle.shard.pointCount;
      for (const segment of handle.shard.segments) payloadBytes += segment.payloadBytes;
    }
    for (const space of context.storage.spaces.values())
      if (space.kind !== 'sparse') vectorBytes += points * space.dim * 4;
    this.contexts.strict.checkCapacity(strict, { points, vectorBytes, payloadBytes, payloadIndexes: 0 });
  }

  /** Splits an operation per shard and applies it; returns the largest op number used. */
  private async apply(
    storage: CollectionStorage,
    operation: UpdateOperation,
    selector: ShardKeySelector | undefined,
  ): Promise<number> {
    const parts = this.split(storage, operation, selector);
    const config = storage.record.config.optimizerConfig;
    if (config.preventUnoptimized) {
      for (const handle of parts.keys()) await waitUntilOptimized(handle, config.indexingThreshold ?? 20000);
    }
    const opNums = await Promise.all([...parts].map(([handle, part]) => handle.shard.update(part)));
    return opNums.length === 0 ? 0 : Math.max(...opNums);
  }

  private split(
    storage: CollectionStorage,
    operation: UpdateOperation,
    selector: ShardKeySelector | undefined,
  ): Map<ShardHandle, UpdateOperation> {
    const parts = new Map<ShardHandle, UpdateOperation>();
    const byIds = <T extends { id: PointId }>(items: T[], make: (subset: T[]) => UpdateOperation) => {
      const routes = storage.routeWrite(
        items.map((item) => item.id),
        selector,
      );
      for (const [handle, ids] of routes) {
        const wanted = new Set(ids);
        parts.set(handle, make(items.filter((item) => wanted.has(item.id))));
      }
    };
    const everywhere = () => {
      for (const handle of storage.writeShardsForFilter(selector)) parts.set(handle, operation);
    };
    if ('upsert' in operation) {
      byIds(operation.upsert.points, (points) => ({ upsert: { ...operation.upsert, points } }));
    } else if ('updateVectors' in operation) {
      // Points may live on any shard of their key; send each to every shard, the owner applies it.
      everywhere();
    } else {
      everywhere();
    }
    return parts;
  }
}

/**
 * `prevent_unoptimized`: while a shard holds more unindexed vector data than the indexing threshold,
 * new writes wait for the optimizer to index it (bounded, so a stuck optimizer cannot stall writes forever).
 */
async function waitUntilOptimized(handle: ShardHandle, thresholdKb: number, maxWaitMs = 60_000): Promise<void> {
  if (thresholdKb <= 0) return;
  const started = Date.now();
  const unoptimizedKb = () =>
    handle.shard.segments.filter((s) => s.appendable).reduce((kb, s) => kb + s.vectorDataKb(), 0);
  while (unoptimizedKb() >= thresholdKb && !handle.shard.isClosed && Date.now() - started < maxWaitMs) {
    handle.shard.optimization.trigger();
    await delay(20);
  }
}

/** Ids an update batch creates or deletes before a later operation of the same batch runs. */
interface BatchView {
  created: Set<string>;
  deleted: Set<string>;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
