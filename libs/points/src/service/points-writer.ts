import { Inject, Injectable, Optional } from '@nestjs/common';
import { turbo4Stored } from './turbo4-vectors';
import { CollectionRecord, PAYLOAD_SCHEMA_TYPES, ShardRecord } from '@vectorstore/collections';
import { DomainError, ValidationIssues } from '@vectorstore/common';
import { validateFilter } from '../filter/filter-validation';
import { parsePath } from '../filter/payload-path';
import { UpdateOperation, UpdateRequest, UpdateResult, UpdateStatus, WriteOrdering } from '../model/operations.model';
import { PointId, pointIdKey } from '../model/point-id.model';
import { PointsSelector, ShardKeySelector } from '../model/selectors.model';
import { NamedVectors } from '../model/vectors.model';
import { validateIndexParams } from '../payload-index/field-index';
import { routeWrite, writeShardsForFilter } from '../storage/collection-storage/shard-routing';
import { CollectionContext, CollectionContexts } from './collection-context';
import { LOCAL_SHARD_WRITER, POINTS_CLUSTER, PointsCluster, SHARD_WRITER, ShardWriter } from './replication-ports';
import { checkNamedVectors, fitVectorKinds, throwVectorIssues } from './vector-validation';

/**
 * Writes to points. Each request is validated against the collection first (so the log only holds
 * valid operations), split per shard, logged durably and applied. `wait` changes only the status
 * reported: the operation is applied before the call returns either way.
 */
@Injectable()
export class PointsWriter {
  private readonly replicas: ShardWriter;

  constructor(
    private readonly contexts: CollectionContexts,
    @Optional() @Inject(SHARD_WRITER) replicas?: ShardWriter,
    @Optional() @Inject(POINTS_CLUSTER) private readonly cluster?: PointsCluster,
  ) {
    this.replicas = replicas ?? LOCAL_SHARD_WRITER;
  }

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
      ordering?: WriteOrdering;
      timeout?: number;
      shardKeySelector?: ShardKeySelector;
      shardKeySelectors?: Array<ShardKeySelector | undefined>;
    },
  ): Promise<UpdateResult[]> {
    const context = this.contexts.resolve(collectionName);
    // A peer that cannot confirm its lease may have been replaced: it acknowledges no write.
    this.cluster?.assertWritable();
    const results: UpdateResult[] = [];
    // Validated and applied under the shared side of the schema lock: a vector name cannot be
    // deleted or re-created between the check and the apply.
    const work = context.storage.schemaLock.shared(async () => {
      // Existence checks see the batch's own earlier upserts and deletes.
      const batch: BatchView = {
        created: new Set(),
        deleted: new Set(),
        stored: await this.storedElsewhere(context, operations),
      };
      operations = operations.map((operation) => fitVectorKinds(operation, context.storage.spaces));
      operations.forEach((operation, i) =>
        this.validate(context, operation, operations.length > 1 ? `operations[${i}].` : '', batch),
      );
      operations = operations.map((operation) => turbo4Stored(operation, context.storage.spaces));
      for (const [i, operation] of operations.entries()) {
        const selector = options.shardKeySelectors?.[i] ?? options.shardKeySelector;
        const opNum = await this.apply(context, operation, selector, options.ordering);
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
    guard.chargeWrite(context.record.id, strict, this.writeRateCost(context, operation));
    if ('upsert' in operation) {
      const { points, updateFilter } = operation.upsert;
      guard.checkWrite(
        name,
        strict,
        { batchSize: points.length, batchName: 'upsert limit', filter: updateFilter },
        context.indexSchemaOf,
      );
      this.checkCapacity(context);
      points.forEach((point, i) => {
        checkNamedVectors(issues, `${prefix}points[${i}].vectors`, spaces, point.vectors);
        this.checkVectorLimits(context, point.vectors);
      });
      if (updateFilter) validateFilter(updateFilter);
      for (const point of points) {
        batch.created.add(pointIdKey(point.id));
        batch.deleted.delete(pointIdKey(point.id));
      }
    } else if ('updateVectors' in operation) {
      guard.checkWrite(
        name,
        strict,
        { batchSize: operation.updateVectors.points.length, batchName: 'update limit' },
        context.indexSchemaOf,
      );
      this.checkCapacity(context);
      operation.updateVectors.points.forEach((point, i) => {
        // As in Qdrant, a point in an update of vectors must name at least one vector.
        if (Object.keys(point.vectors).length === 0)
          issues.add(`${prefix}points[${i}].vectors`, 'must specify vectors to update for point');
        checkNamedVectors(issues, `${prefix}points[${i}].vectors`, spaces, point.vectors);
        this.checkVectorLimits(context, point.vectors);
      });
      // As in Qdrant, the update filter of a vector update needs no index (it reads few points).
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
      if (body.key !== undefined) parsePath(body.key);
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
      guard.checkPayloadIndexCount(strict, existing);
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
        context.indexSchemaOf,
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
        !batch.deleted.has(key) &&
        (batch.stored
          ? batch.stored.has(key)
          : [...context.storage.shards.values()].some((h) => h.shard.find(id) !== undefined));
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

  /**
   * Qdrant's rate cost of one write: the points it names, or the estimated number of points its
   * filter matches; at least 1 (index changes cost 1).
   */
  private writeRateCost(context: CollectionContext, operation: UpdateOperation): number {
    if (!context.record.config.strictModeConfig?.writeRateLimit) return 1;
    const selectorCost = (selector: PointsSelector): number => {
      if ('ids' in selector) return selector.ids.length;
      let estimate = 0;
      for (const handle of context.storage.shards.values()) {
        for (const segment of handle.shard.segments) estimate += segment.estimate(selector.filter).exp;
      }
      return estimate;
    };
    let cost = 0;
    if ('upsert' in operation) cost = operation.upsert.points.length;
    else if ('updateVectors' in operation) cost = operation.updateVectors.points.length;
    else if ('deletePoints' in operation) cost = selectorCost(operation.deletePoints.selector);
    else if ('deleteVectors' in operation) cost = selectorCost(operation.deleteVectors.selector);
    else if ('setPayload' in operation) cost = selectorCost(operation.setPayload.selector);
    else if ('overwritePayload' in operation) cost = selectorCost(operation.overwritePayload.selector);
    else if ('deletePayload' in operation) cost = selectorCost(operation.deletePayload.selector);
    else if ('clearPayload' in operation) cost = selectorCost(operation.clearPayload.selector);
    return Math.max(1, Math.round(cost));
  }

  /** Size limits, against what the collection holds before this write (as Qdrant). */
  private checkCapacity(context: CollectionContext): void {
    const strict = context.record.config.strictModeConfig;
    if (!strict?.enabled) return;
    let points = 0;
    let payloadBytes = 0;
    let vectorBytes = 0;
    for (const handle of context.storage.shards.values()) {
      points += handle.shard.pointCount;
      for (const segment of handle.shard.segments) {
        payloadBytes += segment.payloadBytes;
        vectorBytes += segment.vectorDataKb() * 1024;
      }
    }
    this.contexts.strict.checkCapacity(strict, { points, vectorBytes, payloadBytes });
  }

  /**
   * Cluster mode, a collection with shards on other peers: which of the ids the batch's payload and
   * vector updates name exist anywhere (read from every peer first, as existence is checked before
   * anything is applied). Undefined when every shard is local: the shards are asked directly.
   */
  private async storedElsewhere(
    context: CollectionContext,
    operations: UpdateOperation[],
  ): Promise<Set<string> | undefined> {
    const cluster = this.cluster;
    if (!cluster || cluster.holdsEveryShard(context.record)) return undefined;
    const ids: PointId[] = [];
    for (const operation of operations) {
      if ('updateVectors' in operation) ids.push(...operation.updateVectors.points.map((p) => p.id));
      const selector =
        'setPayload' in operation
          ? operation.setPayload.selector
          : 'overwritePayload' in operation
            ? operation.overwritePayload.selector
            : 'deletePayload' in operation
              ? operation.deletePayload.selector
              : 'clearPayload' in operation
                ? operation.clearPayload.selector
                : undefined;
      if (selector && 'ids' in selector) ids.push(...selector.ids);
    }
    if (ids.length === 0) return new Set();
    return cluster.storedIds(context.record.name, ids);
  }

  /** Splits an operation per shard and applies it; returns the largest op number used. */
  private async apply(
    context: CollectionContext,
    operation: UpdateOperation,
    selector: ShardKeySelector | undefined,
    ordering: WriteOrdering | undefined,
  ): Promise<number> {
    const parts = this.split(context.record, operation, selector);
    const opNums = await Promise.all(
      [...parts].map(([shard, part]) => this.replicas.apply(context, shard.shardId, part, ordering)),
    );
    return opNums.length === 0 ? 0 : Math.max(...opNums);
  }

  /** Each shard (of every peer) an operation touches, with its part of the operation. */
  private split(
    record: CollectionRecord,
    operation: UpdateOperation,
    selector: ShardKeySelector | undefined,
  ): Map<ShardRecord, UpdateOperation> {
    const shards = new Map(record.shards.map((shard) => [shard.shardId, shard]));
    const parts = new Map<ShardRecord, UpdateOperation>();
    const byIds = <T extends { id: PointId }>(items: T[], make: (subset: T[]) => UpdateOperation) => {
      const routes = routeWrite(
        shards,
        record,
        items.map((item) => item.id),
        selector,
      );
      for (const [shard, ids] of routes) {
        const wanted = new Set(ids);
        parts.set(shard, make(items.filter((item) => wanted.has(item.id))));
      }
    };
    if ('upsert' in operation) {
      byIds(operation.upsert.points, (points) => ({ upsert: { ...operation.upsert, points } }));
    } else {
      // Writes by filter, and vector updates (a point may live on any shard of its key), go to every
      // shard; each applies them to the points it holds.
      for (const shard of writeShardsForFilter(shards, record, selector)) parts.set(shard, operation);
    }
    return parts;
  }
}

/** Ids an update batch creates or deletes before a later operation of the same batch runs. */
interface BatchView {
  created: Set<string>;
  deleted: Set<string>;
  /** Cluster mode: the named ids that exist on any peer (see storedElsewhere). */
  stored?: Set<string>;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
