import { StrictModeConfig } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { countConditions, maxConditionSize } from '../filter/filter-validation';
import { Condition, Filter } from '../model/filter.model';
import { SearchParams } from '../model/query.model';

export interface ReadLimits {
  limit?: number;
  timeout?: number;
  filter?: Filter;
  params?: SearchParams;
}

export interface WriteLimits {
  timeout?: number;
  filter?: Filter;
  /** Points in an upsert batch. */
  batchSize?: number;
}

function violation(limit: string, detail: string): DomainError {
  return DomainError.invalidArgument(`Bad request: ${detail} (strict mode: ${limit})`);
}

/**
 * Enforces a collection's strict mode. Every check is a no-op unless strict mode is enabled.
 * `isIndexed` tells whether a payload key has an index, for the unindexed-filtering rules.
 */
export class StrictModeGuard {
  private readonly windows = new Map<string, { start: number; count: number }>();

  checkRead(
    collection: string,
    strict: StrictModeConfig | undefined,
    limits: ReadLimits,
    isIndexed: (key: string) => boolean,
  ): void {
    if (!strict?.enabled) return;
    this.rateLimit(`r:${collection}`, strict.readRateLimit, 'read_rate_limit');
    if (strict.maxQueryLimit !== undefined && limits.limit !== undefined && limits.limit > strict.maxQueryLimit) {
      throw violation('max_query_limit', `Limit exceeded ${limits.limit} > ${strict.maxQueryLimit} for "limit"`);
    }
    this.checkTimeout(strict, limits.timeout);
    const params = limits.params;
    if (
      strict.searchMaxHnswEf !== undefined &&
      params?.hnswEf !== undefined &&
      params.hnswEf > strict.searchMaxHnswEf
    ) {
      throw violation(
        'search_max_hnsw_ef',
        `Limit exceeded ${params.hnswEf} > ${strict.searchMaxHnswEf} for "hnsw_ef"`,
      );
    }
    if (strict.searchAllowExact === false && params?.exact === true) {
      throw violation('search_allow_exact', 'Exact search is not allowed');
    }
    const oversampling = params?.quantization?.oversampling;
    if (
      strict.searchMaxOversampling !== undefined &&
      oversampling !== undefined &&
      oversampling > strict.searchMaxOversampling
    ) {
      throw violation(
        'search_max_oversampling',
        `Limit exceeded ${oversampling} > ${strict.searchMaxOversampling} for "oversampling"`,
      );
    }
    this.checkFilter(
      strict,
      limits.filter,
      strict.unindexedFilteringRetrieve,
      isIndexed,
      'unindexed_filtering_retrieve',
    );
  }

  checkWrite(
    collection: string,
    strict: StrictModeConfig | undefined,
    limits: WriteLimits,
    isIndexed: (key: string) => boolean,
  ): void {
    if (!strict?.enabled) return;
    this.rateLimit(`w:${collection}`, strict.writeRateLimit, 'write_rate_limit');
    this.checkTimeout(strict, limits.timeout);
    if (
      strict.upsertMaxBatchsize !== undefined &&
      limits.batchSize !== undefined &&
      limits.batchSize > strict.upsertMaxBatchsize
    ) {
      throw violation(
        'upsert_max_batchsize',
        `Limit exceeded ${limits.batchSize} > ${strict.upsertMaxBatchsize} for "upsert batch size"`,
      );
    }
    this.checkFilter(strict, limits.filter, strict.unindexedFilteringUpdate, isIndexed, 'unindexed_filtering_update');
  }

  /** Storage-size limits, checked before a write that adds data. */
  checkCapacity(
    strict: StrictModeConfig | undefined,
    usage: { points: number; vectorBytes: number; payloadBytes: number; payloadIndexes: number },
  ): void {
    if (!strict?.enabled) return;
    if (strict.maxPointsCount !== undefined && usage.points > strict.maxPointsCount) {
      throw violation('max_points_count', `Max points count limit ${strict.maxPointsCount} reached`);
    }
    if (strict.maxCollectionVectorSizeBytes !== undefined && usage.vectorBytes > strict.maxCollectionVectorSizeBytes) {
      throw violation(
        'max_collection_vector_size_bytes',
        `Max vector storage size limit ${strict.maxCollectionVectorSizeBytes} bytes reached`,
      );
    }
    if (
      strict.maxCollectionPayloadSizeBytes !== undefined &&
      usage.payloadBytes > strict.maxCollectionPayloadSizeBytes
    ) {
      throw violation(
        'max_collection_payload_size_bytes',
        `Max payload storage size limit ${strict.maxCollectionPayloadSizeBytes} bytes reached`,
      );
    }
    if (strict.maxPayloadIndexCount !== undefined && usage.payloadIndexes > strict.maxPayloadIndexCount) {
      throw violation(
        'max_payload_index_count',
        `Max payload index count limit ${strict.maxPayloadIndexCount} reached`,
      );
    }
  }

  /** Per-vector limits of strict mode (multivector size, sparse length). */
  checkVectorLimits(strict: StrictModeConfig | undefined, name: string, kind: 'multi' | 'sparse', size: number): void {
    if (!strict?.enabled) return;
    if (kind === 'multi') {
      const max = strict.multivectorConfig?.[name]?.maxVectors;
      if (max !== undefined && size > max)
        throw violation(
          'multivector_config.max_vectors',
          `Multivector \`${name}\` has ${size} vectors, more than ${max}`,
        );
    } else {
      const max = strict.sparseConfig?.[name]?.maxLength;
      if (max !== undefined && size > max)
        throw violation('sparse_config.max_length', `Sparse vector \`${name}\` has ${size} elements, more than ${max}`);
    }
  }

  private checkTimeout(strict: StrictModeConfig, timeout: number | undefined): void {
    if (strict.maxTimeout !== undefined && timeout !== undefined && timeout > strict.maxTimeout) {
      throw violation('max_timeout', `Limit exceeded ${timeout} > ${strict.maxTimeout} for "timeout"`);
    }
  }

  private checkFilter(
    strict: StrictModeConfig,
    filter: Filter | undefined,
    allowUnindexed: boolean | undefined,
    isIndexed: (key: string) => boolean,
    rule: string,
  ): void {
    if (!filter) return;
    if (strict.filterMaxConditions !== undefined) {
      const count = countConditions(filter);
      if (count > strict.filterMaxConditions) {
        throw violation(
          'filter_max_conditions',
          `Filter has ${count} conditions, more than ${strict.filterMaxConditions}`,
        );
      }
    }
    if (strict.conditionMaxSize !== undefined) {
      const size = maxConditionSize(filter);
      if (size > strict.conditionMaxSize)
        throw violation('condition_max_size', `Condition holds ${size} values, more than ${strict.conditionMaxSize}`);
    }
    if (allowUnindexed === false) {
      for (const key of filterKeys(filter)) {
        if (!isIndexed(key)) throw violation(rule, `Index required but not found for "${key}"`);
      }
    }
  }

  /** Fixed one-minute windows per collection; the answer says when the window resets. */
  private rateLimit(key: string, perMinute: number | undefined, rule: string): void {
    if (perMinute === undefined) return;
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= 60_000) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= perMinute) {
      const retryAfter = Math.max(1, Math.ceil((window.start + 60_000 - now) / 1000));
      throw DomainError.resourceExhausted(
        `Rate limiting exceeded: ${perMinute} per minute (strict mode: ${rule}); retry after ${retryAfter} s`,
        retryAfter,
      );
    }
    window.count++;
  }
}

/** Payload keys a filter tests (nested conditions give `parent[].child`). */
export function filterKeys(filter: Filter, prefix = ''): string[] {
  const keys: string[] = [];
  const visit = (condition: Condition) => {
    if ('field' in condition) keys.push(prefix + condition.field.key);
    else if ('isEmpty' in condition) keys.push(prefix + condition.isEmpty.key);
    else if ('isNull' in condition) keys.push(prefix + condition.isNull.key);
    else if ('nested' in condition)
      keys.push(...filterKeys(condition.nested.filter, `${prefix}${condition.nested.key}[].`));
    else if ('filter' in condition) keys.push(...filterKeys(condition.filter, prefix));
  };
  for (const c of [
    ...(filter.must ?? []),
    ...(filter.should ?? []),
    ...(filter.mustNot ?? []),
    ...(filter.minShould?.conditions ?? []),
  ])
    visit(c);
  return keys;
}
