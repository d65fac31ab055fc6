import { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import {
  integersToNumbers,
  isJsonObject,
  JsonObject,
  JsonValue,
  KeyedMutex,
  parseJson,
  setOwn,
  stringifyJson,
} from '@vectorstore/common';
import { readFileIfExists, removeStaleTemporaryFiles, writeFileAtomic } from '@vectorstore/persistence';
import { SparseCorpus } from '@vectorstore/engine';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { parsePath } from '../filter/payload-path';
import { Filter } from '../model/filter.model';
import { UpdateOperation } from '../model/operations.model';
import { PointId } from '../model/point-id.model';
import { SearchParams } from '../model/query.model';
import { PointsSelector } from '../model/selectors.model';
import { NamedVectors, Vector } from '../model/vectors.model';
import { decodeOperation, encodeOperation } from './operation-codec';
import { Segment, SlotPredicate } from './segment';
import { SparseSegmentVectors } from './vectors/sparse-vectors';
import { OpenShardLog, ShardLog, ShardLogOptions } from './shard-log';
import { VectorSpace } from './vector-space';

export interface LocalShardOptions {
  dir: string;
  spaces: Map<string, VectorSpace>;
  log: Omit<ShardLogOptions, 'dir'>;
  openLog: OpenShardLog;
}

/** A point found in a segment. */
export interface PointRef {
  segment: Segment;
  slot: number;
}

/** A search hit inside a shard. */
export interface ShardHit extends PointRef {
  score: number;
}

export interface FieldIndexSchema {
  type: PayloadSchemaType;
  params?: PayloadIndexParams;
}

/** A segment as the last manifest holds it: its files and the versions they were written at. */
interface PersistedSegment {
  bodyVersion: number;
  deletesVersion: number;
  body: string;
  deletes?: string;
}

interface Manifest {
  version: 1;
  persistedOpNum: number;
  /** Exact files of each segment: bodies and delete files are never overwritten, so a crash mid-flush leaves the last manifest's files intact. */
  segments: Array<{ id: string; bodyVersion: number; body: string; deletes?: string }>;
  fieldIndexes: Array<{ field: string; type: PayloadSchemaType; params?: PayloadIndexParams }>;
}

/** Files an immutable segment may keep data in besides its body: `<id>.vec` (vectors), `<id>.pay` (payloads). */
const SIDE_FILE_EXTENSIONS = ['.vec', '.pay'] as const;

/**
 * One shard on this node: a write-ahead log in front of segments. A write is logged and fsynced,
 * then applied in op-number order; a flush persists segments and lets the log drop what they hold;
 * opening replays the log past the last flush, so an acknowledged write survives any crash.
 */
export class LocalShard {
  /** Segments, the active appendable one first. */
  segments: Segment[] = [];
  active!: Segment;
  readonly fieldIndexes = new Map<string, FieldIndexSchema>();
  lastApplied = 0;
  private persistedOpNum = 0;
  /** The version each segment's body file was written at; absent when it has none yet. */
  /** What the last written manifest holds for each segment. */
  private readonly persisted = new Map<string, PersistedSegment>();
  private readonly pending = new Map<number, UpdateOperation>();
  private readonly failedOps = new Map<number, Error>();
  private readonly flushLock = new KeyedMutex();
  /** Ids of segments being built: their files are on disk before any manifest lists them. */
  private readonly building = new Set<string>();
  private log!: ShardLog;
  private closed = false;
  /** Set when close() starts; closed is set once it finished. */
  private closing = false;
  /** Set when an operation failed to apply: the shard reports Red and refuses writes. */
  failure: Error | undefined;
  /** What the optimizer is doing here; read for the collection status. */
  readonly optimization = {
    /** Optimizations run only once a write arrived since start (after a restart pending work shows Grey). */
    triggered: false,
    running: 0,
    error: undefined as string | undefined,
  };

  private currentSpaces: Map<string, VectorSpace>;

  private constructor(private readonly options: LocalShardOptions) {
    this.currentSpaces = options.spaces;
  }

  static async open(options: LocalShardOptions): Promise<LocalShard> {
    const shard = new LocalShard(options);
    await shard.load();
    return shard;
  }

  get spaces(): Map<string, VectorSpace> {
    return this.currentSpaces;
  }

  /**
   * Takes a changed collection config (HNSW, quantization): new and rebuilt segments use it;
   * existing segments keep what they were built with until the optimizer rebuilds them.
   *
   * Vector names in `dropped` (deleted from the collection) lose their store in every segment at
   * once, and those segments are written again, without it, by the next flush, so no file the
   * manifest lists keeps the old vectors. A name the active segment has no store for (one just
   * added) gets one by moving the active segment's live points into a new active segment with every
   * current space; other segments answer for it as having no such vectors until rebuilt.
   */
  updateSpaces(spaces: Map<string, VectorSpace>, dropped: readonly string[] = []): void {
    this.currentSpaces = spaces;
    const rewrite = this.segments.filter((segment) =>
      dropped.map((name) => segment.dropVectorStore(name)).some(Boolean),
    );
    if (rewrite.length > 0) {
      // Marked under the flush lock: a flush under way snapshotted these segments before the drop and
      // records them as persisted when it ends; the next flush then writes them again, without it.
      void this.flushLock.run('flush', async () => rewrite.forEach((segment) => this.persisted.delete(segment.id)));
    }
    if ([...spaces.keys()].every((name) => this.active.vectorStore(name) !== undefined)) return;
    const previous = this.active;
    const next = this.newAppendableSegment();
    for (const point of previous.livePoints()) next.upsert(point.version, point.id, point.vectors, point.payload);
    next.raiseVersion(previous.version);
    this.active = next;
    this.segments = [next, ...this.segments.filter((s) => s !== next && s !== previous)];
    this.persisted.delete(previous.id);
    previous.dispose();
  }

  /** True from the moment close() starts. */
  get isClosed(): boolean {
    return this.closing;
  }

  /** Where segment files live; the optimizer writes a new segment's vector and payload files here. */
  get segmentsDir(): string {
    return path.join(this.options.dir, 'segments');
  }

  private async load(): Promise<void> {
    await fs.mkdir(this.segmentsDir, { recursive: true, mode: 0o700 });
    await removeStaleTemporaryFiles(this.options.dir);
    await removeStaleTemporaryFiles(this.segmentsDir);
    const manifestText = await readFileIfExists(path.join(this.options.dir, 'manifest.json'));
    if (manifestText !== undefined) {
      const manifest = integersToNumbers(parseJson(manifestText)) as Manifest;
      this.persistedOpNum = manifest.persistedOpNum;
      for (const entry of manifest.fieldIndexes)
        this.fieldIndexes.set(entry.field, { type: entry.type, params: entry.params });
      for (const entry of manifest.segments) {
        const body = await fs.readFile(path.join(this.segmentsDir, entry.body));
        const segment = Segment.load(body, this.currentSpaces, this.segmentsDir);
        if (entry.deletes)
          this.applySavedDeletes(segment, await fs.readFile(path.join(this.segmentsDir, entry.deletes)));
        this.persisted.set(segment.id, {
          bodyVersion: entry.bodyVersion,
          deletesVersion: segment.version,
          body: entry.body,
          deletes: entry.deletes,
        });
        this.adopt(segment);
        this.segments.push(segment);
      }
      await this.removeUnlistedSegmentFiles(manifest);
    }
    this.active = this.segments.find((s) => s.appendable) ?? this.newAppendableSegment();
    this.segments = [this.active, ...this.segments.filter((s) => s !== this.active)];
    this.lastApplied = this.persistedOpNum;
    this.log = await this.options.openLog({ ...this.options.log, dir: path.join(this.options.dir, 'wal') });
    for await (const record of this.log.readFrom(this.persistedOpNum + 1)) {
      // An operation that cannot be applied marks the shard failed (Red) but never stops it from
      // opening: the records after it are still applied, so no later acknowledged write is lost.
      try {
        this.apply(record.opNum, decodeOperation(record.data));
      } catch (error) {
        this.failure ??= error instanceof Error ? error : new Error(String(error));
      }
      this.lastApplied = record.opNum;
    }
  }

  /** Logs the operation durably, applies it, and returns its op number. */
  async update(operation: UpdateOperation): Promise<number> {
    if (this.closed) throw new Error('shard is closed');
    if (this.failure) throw this.failure;
    this.optimization.triggered = true;
    const opNum = await this.log.append(encodeOperation(operation));
    if (opNum <= this.lastApplied && !this.pending.has(opNum)) {
      throw new Error(`write-ahead log returned op ${opNum}, but ${this.lastApplied} is already applied`);
    }
    this.pending.set(opNum, operation);
    this.drainPending();
    const failed = this.failedOps.get(opNum);
    if (failed) {
      this.failedOps.delete(opNum);
      throw failed;
    }
    return opNum;
  }

  private drainPending(): void {
    for (let next = this.lastApplied + 1; this.pending.has(next); next++) {
      const operation = this.pending.get(next)!;
      this.pending.delete(next);
      try {
        this.apply(next, operation);
      } catch (error) {
        // Validation should make this impossible; if it happens the caller is told, and the shard
        // stops taking writes (Red) because the operation may be half-applied.
        const failure = error instanceof Error ? error : new Error(String(error));
        this.failure = failure;
        this.failedOps.set(next, failure);
      }
      this.lastApplied = next;
    }
  }

  // ---- applying operations (deterministic: replay reproduces the same state) ----

  private apply(opNum: number, operation: UpdateOperation): void {
    if ('upsert' in operation) {
      const { points, updateFilter, updateMode } = operation.upsert;
      for (const point of points) {
        const found = this.find(point.id);
        if (found && updateMode === 'InsertOnly') continue;
        if (!found && updateMode === 'UpdateOnly') continue;
        if (found && updateFilter && !found.segment.matches(found.slot, updateFilter)) continue;
        if (found && found.segment !== this.active) found.segment.delete(opNum, found.slot);
        this.active.upsert(opNum, point.id, point.vectors, point.payload);
      }
    } else if ('deletePoints' in operation) {
      for (const ref of this.select(operation.deletePoints.selector)) ref.segment.delete(opNum, ref.slot);
    } else if ('updateVectors' in operation) {
      const { points, updateFilter } = operation.updateVectors;
      for (const point of points) {
        const found = this.find(point.id);
        if (!found || (updateFilter && !found.segment.matches(found.slot, updateFilter))) continue;
        this.rewrite(opNum, found, (vectors, payload) => ({ vectors: { ...vectors, ...point.vectors }, payload }));
      }
    } else if ('deleteVectors' in operation) {
      const { selector, vectorNames } = operation.deleteVectors;
      for (const ref of this.select(selector)) {
        this.rewrite(opNum, ref, (vectors, payload) => ({ vectors: omit(vectors, vectorNames), payload }));
      }
    } else if ('setPayload' in operation) {
      const { selector, payload: update, key } = operation.setPayload;
      for (const ref of this.select(selector)) {
        this.rewrite(opNum, ref, (vectors, payload) => ({
          vectors,
          payload: key ? setAtPath(payload, key, update) : { ...payload, ...update },
        }));
      }
    } else if ('overwritePayload' in operation) {
      const { selector, payload: update, key } = operation.overwritePayload;
      for (const ref of this.select(selector)) {
        this.rewrite(opNum, ref, (vectors, payload) => ({
          vectors,
          payload: key ? setAtPath(payload, key, update) : update,
        }));
      }
    } else if ('deletePayload' in operation) {
      const { selector, keys } = operation.deletePayload;
      for (const ref of this.select(selector)) {
        this.rewrite(opNum, ref, (vectors, payload) => ({ vectors, payload: deleteKeys(payload, keys) }));
      }
    } else if ('clearPayload' in operation) {
      for (const ref of this.select(operation.clearPayload.selector))
        this.rewrite(opNum, ref, (vectors) => ({ vectors, payload: {} }));
    } else if ('createFieldIndex' in operation) {
      const { field, type, params } = operation.createFieldIndex;
      this.fieldIndexes.set(field, { type, params });
      for (const segment of this.segments) segment.createFieldIndex(field, type, params);
    } else if ('deleteFieldIndex' in operation) {
      this.fieldIndexes.delete(operation.deleteFieldIndex.field);
      for (const segment of this.segments) segment.deleteFieldIndex(operation.deleteFieldIndex.field);
    }
  }

  /** Changes a point's vectors/payload: in place in the active segment, else copied there (copy-on-write). */
  private rewrite(
    opNum: number,
    ref: PointRef,
    change: (vectors: NamedVectors, payload: JsonObject) => { vectors: NamedVectors; payload: JsonObject },
  ): void {
    const id = ref.segment.pointId(ref.slot);
    const current = ref.segment.pointVectors(ref.slot);
    const next = change(current, ref.segment.payload(ref.slot));
    if (ref.segment !== this.active) {
      ref.segment.delete(opNum, ref.slot);
      this.active.upsert(opNum, id, next.vectors, next.payload);
    } else {
      // Unchanged vectors keep their identity through `change`, so only changed ones are re-added.
      this.active.rewrite(opNum, ref.slot, current, next.vectors, next.payload);
    }
  }

  /** Where a live point is, if anywhere. */
  find(id: PointId): PointRef | undefined {
    for (const segment of this.segments) {
      const slot = segment.slotOf(id);
      if (slot !== undefined) return { segment, slot };
    }
    return undefined;
  }

  /** Live points chosen by ids or a filter. */
  select(selector: PointsSelector): PointRef[] {
    if ('ids' in selector) {
      return selector.ids.map((id) => this.find(id)).filter((ref): ref is PointRef => ref !== undefined);
    }
    const refs: PointRef[] = [];
    for (const segment of this.segments) {
      for (const slot of segment.matchingSlots(selector.filter)) refs.push({ segment, slot });
    }
    return refs;
  }

  // ---- reads ----

  get pointCount(): number {
    return this.segments.reduce((sum, segment) => sum + segment.pointCount, 0);
  }

  /** Number of vectors held in indexed (graph-searched) segments. */
  get indexedVectorCount(): number {
    let count = 0;
    for (const segment of this.segments) {
      for (const name of segment.vectorNames()) {
        const store = segment.vectorStore(name)!;
        if (store.indexed && store.space.kind !== 'sparse') count += store.count;
      }
    }
    return count;
  }

  /**
   * The `k` best hits for a query on vector space `name` among points passing `filter`, best
   * first. `higherIsBetter` orders scores (false for distances).
   */
  search(
    name: string,
    query: Vector,
    k: number,
    filter: Filter | undefined,
    params: SearchParams | undefined,
    higherIsBetter: boolean,
  ): ShardHit[] {
    const hits: ShardHit[] = [];
    for (const segment of this.segments) {
      if (segment.pointCount === 0) continue;
      const allowed: SlotPredicate | undefined = filter ? segment.filterPredicate(filter) : undefined;
      const found = segment.search(name, query, k, allowed, params);
      for (let i = 0; i < found.slots.length; i++) hits.push({ segment, slot: found.slots[i], score: found.scores[i] });
    }
    hits.sort((a, b) => (higherIsBetter ? b.score - a.score : a.score - b.score));
    return hits.slice(0, k);
  }

  // ---- persistence ----

  /**
   * Persists every segment changed since the last flush, then the manifest, then lets the log drop
   * what the segments now hold. Snapshots are taken synchronously, so they agree on one op number.
   */
  flush(): Promise<void> {
    return this.flushLock.run('flush', async () => {
      const opNum = this.lastApplied;
      if (opNum === this.persistedOpNum && this.segments.every((s) => this.persisted.has(s.id))) return;
      // New files get new names (segment id + version); nothing the current manifest lists is overwritten.
      const writes: Array<{ file: string; data: Uint8Array }> = [];
      const next = new Map<string, PersistedSegment>();
      for (const segment of this.segments) {
        const current = this.persisted.get(segment.id);
        if (current === undefined || (segment.appendable && segment.version > current.bodyVersion)) {
          const body = `${segment.id}.${segment.version}.seg`;
          writes.push({ file: body, data: segment.save() });
          next.set(segment.id, { bodyVersion: segment.version, deletesVersion: segment.version, body });
        } else if (segment.version > current.deletesVersion) {
          // An immutable segment only changes by deletes: persist those, not the whole body.
          const deletes = `${segment.id}.${segment.version}.del`;
          writes.push({ file: deletes, data: this.savedDeletes(segment) });
          next.set(segment.id, { ...current, deletesVersion: segment.version, deletes });
        } else {
          next.set(segment.id, current);
        }
      }
      const manifest: Manifest = {
        version: 1,
        persistedOpNum: opNum,
        segments: this.segments.map((s) => {
          const { bodyVersion, body, deletes } = next.get(s.id)!;
          return { id: s.id, bodyVersion, body, ...(deletes ? { deletes } : {}) };
        }),
        fieldIndexes: [...this.fieldIndexes].map(([field, schema]) => ({ field, ...schema })),
      };
      for (const write of writes) await writeFileAtomic(path.join(this.segmentsDir, write.file), write.data);
      await writeFileAtomic(path.join(this.options.dir, 'manifest.json'), stringifyJson(manifest, 2));
      // A segment swapped out while this flush wrote is no longer ours to track.
      const present = new Set(this.segments.map((s) => s.id));
      for (const [id, entry] of next) if (present.has(id)) this.persisted.set(id, entry);
      this.persistedOpNum = opNum;
      await this.log.ack(opNum);
      // Only what this manifest lists survives; a concurrent swap cannot make it drop a listed file.
      await this.removeUnlistedSegmentFiles(manifest);
    });
  }

  async close(): Promise<void> {
    if (this.closing) return;
    // From here no optimization may swap segments in: the folder may be about to go.
    this.closing = true;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      await this.log.close();
      for (const segment of this.segments) segment.dispose();
    }
  }

  /**
   * Replaces `sources` with `replacement` (an optimized segment) and persists the change. The
   * sources' files are closed afterwards: every read of a segment runs synchronously, so none can
   * still be using them.
   */
  async swapSegments(sources: readonly Segment[], replacement: Segment | undefined): Promise<void> {
    if (this.closing) throw new Error('shard is closed');
    this.segments = this.segments.filter((s) => !sources.includes(s));
    if (replacement) this.segments.push(this.adopt(replacement));
    for (const source of sources) {
      this.persisted.delete(source.id);
    }
    try {
      await this.flush();
    } finally {
      for (const source of sources) source.dispose();
    }
  }

  /** Seals the active segment (for the optimizer) and starts a fresh one for writes. */
  rollActiveSegment(): Segment {
    const sealed = this.active;
    this.active = this.newAppendableSegment();
    this.segments = [this.active, ...this.segments.filter((s) => s !== this.active)];
    return sealed;
  }

  private newAppendableSegment(): Segment {
    const segment = Segment.create(this.currentSpaces, { appendable: true, indexed: false });
    for (const [field, schema] of this.fieldIndexes) segment.createFieldIndex(field, schema.type, schema.params);
    this.segments.push(this.adopt(segment));
    return segment;
  }

  /** Points a segment's sparse spaces at the shard's IDF statistics (Qdrant computes IDF per shard). */
  private adopt(segment: Segment): Segment {
    for (const name of segment.vectorNames()) {
      const store = segment.vectorStore(name);
      if (store instanceof SparseSegmentVectors) store.useCorpus(() => this.sparseCorpus(name));
    }
    return segment;
  }

  private sparseCorpus(name: string): SparseCorpus {
    const stores: SparseSegmentVectors[] = [];
    for (const segment of this.segments) {
      const store = segment.vectorStore(name);
      if (store instanceof SparseSegmentVectors) stores.push(store);
    }
    return {
      documents: stores.reduce((sum, store) => sum + store.count, 0),
      frequency: (dim) => stores.reduce((sum, store) => sum + store.documentFrequency(dim), 0),
    };
  }

  private savedDeletes(segment: Segment): Uint8Array {
    const bitmap = new Uint8Array(Math.ceil(segment.size / 8));
    for (let slot = 0; slot < segment.size; slot++) if (segment.isDeleted(slot)) bitmap[slot >> 3] |= 1 << (slot & 7);
    return serialize({ version: segment.version, bitmap });
  }

  private applySavedDeletes(segment: Segment, bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const { version, bitmap } = deserialize(bytes) as { version: number; bitmap: Uint8Array };
    for (let slot = 0; slot < segment.size; slot++) {
      if (bitmap[slot >> 3] & (1 << (slot & 7))) segment.delete(version, slot);
    }
    segment.raiseVersion(version);
  }

  /**
   * Keeps the files of a segment being built (its id) from being removed as unlisted until
   * {@link releaseBuild}; a build that fails removes them then.
   */
  reserveBuild(id: string): void {
    this.building.add(id);
  }

  /** Ids of the segments being built now. */
  buildsInProgress(): string[] {
    return [...this.building];
  }

  isBuilding(id: string): boolean {
    return this.building.has(id);
  }

  async releaseBuild(id: string, built: boolean): Promise<void> {
    this.building.delete(id);
    if (!built && !this.segments.some((s) => s.id === id)) {
      await Promise.all(
        SIDE_FILE_EXTENSIONS.map((ext) => fs.rm(path.join(this.segmentsDir, `${id}${ext}`), { force: true })),
      );
    }
  }

  private async removeUnlistedSegmentFiles(manifest: Manifest): Promise<void> {
    const keep = new Set(manifest.segments.flatMap((s) => (s.deletes ? [s.body, s.deletes] : [s.body])));
    // A segment's vector and payload files belong to it for its whole life (they never change).
    const keepIds = new Set([
      ...manifest.segments.map((s) => s.id),
      ...this.segments.map((s) => s.id),
      ...this.building,
    ]);
    const names = await fs.readdir(this.segmentsDir).catch(() => [] as string[]);
    const unlisted = (name: string): boolean => {
      if (/\.(seg|del)$/.test(name)) return !keep.has(name);
      if (SIDE_FILE_EXTENSIONS.some((ext) => name.endsWith(ext))) return !keepIds.has(name.slice(0, name.indexOf('.')));
      return false;
    };
    await Promise.all(names.filter(unlisted).map((name) => fs.rm(path.join(this.segmentsDir, name), { force: true })));
  }
}

function omit(vectors: NamedVectors, names: readonly string[]): NamedVectors {
  const result: NamedVectors = {};
  for (const [name, vector] of Object.entries(vectors)) if (!names.includes(name)) result[name] = vector;
  return result;
}

/** Removes payload keys; a dotted key removes inside nested objects. */
function deleteKeys(payload: JsonObject, keys: readonly string[]): JsonObject {
  const result = structuredClone(payload);
  for (const key of keys) {
    const segments = parsePath(key);
    let target: JsonObject | undefined = result;
    for (let i = 0; i < segments.length - 1 && target; i++) {
      const segment = segments[i];
      const next: unknown =
        segment.kind === 'key' && Object.hasOwn(target, segment.key) ? target[segment.key] : undefined;
      target = typeof next === 'object' && next !== null && !Array.isArray(next) ? (next as JsonObject) : undefined;
    }
    const last = segments[segments.length - 1];
    if (target && last?.kind === 'key') delete target[last.key];
  }
  return result;
}

/** Sets `value` at a dotted path inside `payload` (creating objects on the way), as Qdrant's set_payload `key`. */
export function setAtPath(payload: JsonObject, key: string, value: JsonObject): JsonObject {
  const segments = parsePath(key);
  const root: JsonObject = structuredClone(payload);
  let target: JsonObject = root;
  for (const segment of segments) {
    if (segment.kind !== 'key') throw new Error(`payload key ${key}: only object keys may be used to set a payload`);
    const next = Object.hasOwn(target, segment.key) ? target[segment.key] : undefined;
    if (!isJsonObject(next)) setOwn(target, segment.key, {});
    target = target[segment.key] as JsonObject;
  }
  for (const [k, v] of Object.entries(value)) setOwn(target, k, v as JsonValue);
  return root;
}
