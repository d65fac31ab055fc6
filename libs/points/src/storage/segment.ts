import { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { JsonObject, JsonValue, isJsonObject, setOwn, stringifyJson } from '@vectorstore/common';
import { writeFileAtomic } from '@vectorstore/persistence';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { matchesFilter, PointView } from '../filter/filter-evaluator';
import { parsePath } from '../filter/payload-path';
import { Filter } from '../model/filter.model';
import { PointId, pointIdKey } from '../model/point-id.model';
import { SearchParams } from '../model/query.model';
import { NamedVectors, Vector } from '../model/vectors.model';
import { PayloadIndexSet } from '../payload-index/payload-index-set';
import { DiskPayloads, PayloadFileLayout } from './disk-payloads';
import { columnsOf, SegmentColumns } from './segment-columns';
import { SegmentFile } from './segment-file';
import { SegmentDiskLayout, segmentProfile } from './segment-layout';
import { DenseSegmentVectors } from './vectors/dense-vectors';
import { SegmentVectors, SlotHits } from './vectors/segment-vectors';
import { createSegmentVectors, loadSegmentVectors } from './vectors/vector-store-factory';
import { VectorSpace } from './vector-space';

/** A point as the optimizer copies it between segments. */
export interface SegmentPoint {
  id: PointId;
  version: number;
  payload: JsonObject;
  vectors: NamedVectors;
}

/** A point slot predicate: true for live points that pass a filter. */
export type SlotPredicate = (slot: number) => boolean;

interface SegmentSnapshot {
  id: string;
  /** {@link segmentProfile} of an optimizer-built segment. */
  profile?: string;
  appendable: boolean;
  version: number;
  ids: PointId[];
  versions: number[];
  /** In-memory payloads, or where they are in the segment's payload file with their JSON sizes. */
  payloads?: Array<JsonObject | undefined>;
  payloadFile?: PayloadFileLayout & { sizes: Uint32Array };
  deleted: Uint8Array;
  vectors: Array<{ name: string; bytes: Uint8Array }>;
  payloadIndexes: Uint8Array;
}

/**
 * A set of points with their payloads and vectors. Appendable segments take new points; indexed
 * (immutable) ones only take deletes, so changing one of their points moves it to an appendable
 * segment (copy-on-write). Slots are dense internal ids; deleted slots stay until the optimizer
 * rebuilds the segment.
 */
export class Segment {
  /** Largest op number applied to this segment. */
  version = 0;
  /** What an optimizer-built segment was built with ({@link segmentProfile}); absent for appendable ones. */
  profile: string | undefined;
  private ids: PointId[] = [];
  private readonly slotByKey = new Map<string, number>();
  private versions: number[] = [];
  private payloads: Array<JsonObject | undefined> = [];
  /** Files the segment reads vectors or payloads from (immutable segments kept on disk). */
  private files: SegmentFile[] = [];
  /** Set when payloads live in a file instead of `payloads`. */
  private diskPayloads: { store: DiskPayloads; layout: PayloadFileLayout } | undefined;
  private deleted = new Uint8Array(64);
  private live = 0;
  /** Serialized size of each slot's payload, and their sum over live points (strict mode limits). */
  private payloadSizes: number[] = [];
  private livePayloadBytes = 0;
  private readonly vectors = new Map<string, SegmentVectors>();
  readonly payloadIndexes: PayloadIndexSet;

  private constructor(
    readonly id: string,
    readonly appendable: boolean,
    payloadIndexes?: PayloadIndexSet,
  ) {
    this.payloadIndexes = payloadIndexes ?? new PayloadIndexSet((visit) => this.forEachLivePayload(visit));
  }

  /** An empty segment with a vector store per space. */
  static create(
    spaces: Map<string, VectorSpace>,
    options: { appendable: boolean; indexed: boolean; id?: string },
  ): Segment {
    const segment = new Segment(options.id ?? randomUUID(), options.appendable);
    for (const [name, space] of spaces) segment.vectors.set(name, createSegmentVectors(space, options.indexed));
    return segment;
  }

  /**
   * An immutable, indexed segment holding `points` (tests and small builds; the optimizer hands
   * columns to {@link Segment.buildFromColumns}). Vectors go into graph indexes and payload indexes
   * are built for `fieldIndexes`.
   */
  static build(
    spaces: Map<string, VectorSpace>,
    points: readonly SegmentPoint[],
    fieldIndexes: ReadonlyArray<{ field: string; type: PayloadSchemaType; params?: PayloadIndexParams }>,
    id: string = randomUUID(),
  ): Segment {
    return Segment.buildFromColumns(spaces, columnsOf(points, denseDimsOf(spaces)), fieldIndexes, id);
  }

  /**
   * An immutable, indexed segment from the columns of an optimization's input. Each dense space is
   * added in one engine call (which builds the graph on several threads), and its packed vectors are
   * let go right after, so the build holds them only once.
   */
  static buildFromColumns(
    spaces: Map<string, VectorSpace>,
    columns: SegmentColumns,
    fieldIndexes: ReadonlyArray<{ field: string; type: PayloadSchemaType; params?: PayloadIndexParams }>,
    id: string = randomUUID(),
  ): Segment {
    const segment = new Segment(id, false);
    for (const [name, space] of spaces) segment.vectors.set(name, createSegmentVectors(space, true));
    for (let i = 0; i < columns.ids.length; i++) {
      const slot = segment.allocate(columns.ids[i]);
      segment.payloads[slot] = columns.payloads[i];
      segment.setPayloadSize(slot, segment.payloads[slot]);
      segment.touch(slot, columns.versions[i]);
    }
    for (const packed of columns.dense) {
      const store = segment.vectors.get(packed.name);
      if (store instanceof DenseSegmentVectors) store.addPacked(packed.points, packed.values);
      packed.values = new Float32Array(0);
    }
    for (const { name, entries } of columns.other) {
      const store = segment.vectors.get(name);
      if (store) for (const [slot, vector] of entries) store.set(slot, vector);
    }
    for (const index of fieldIndexes) segment.createFieldIndex(index.field, index.type, index.params);
    return segment;
  }

  /** Live points with everything stored about them (input of an optimization). */
  livePoints(): SegmentPoint[] {
    const bySlot = new Map<number, SegmentPoint>();
    this.forEachLivePayload((slot, payload) => {
      bySlot.set(slot, { id: this.ids[slot], version: this.versions[slot], payload, vectors: {} });
    });
    // store by store, so vectors on disk are read in sequential batches rather than one by one
    for (const [name, store] of this.vectors) {
      store.forEach((slot, vector) => {
        const point = bySlot.get(slot);
        if (point) setOwn(point.vectors, name, vector);
      });
    }
    return [...bySlot.values()];
  }

  /** Kilobytes of dense vector data (1 KB = one 256-dim float32 vector), as thresholds count them. */
  vectorDataKb(): number {
    let bytes = 0;
    for (const store of this.vectors.values()) {
      const space = store.space;
      if (space.kind === 'sparse') continue;
      const element = space.datatype === 'float16' ? 2 : space.datatype === 'uint8' ? 1 : 4;
      bytes += store.count * space.dim * (space.kind === 'multi' ? 1 : element);
    }
    return bytes / 1024;
  }

  get size(): number {
    return this.ids.length;
  }

  /** Releases engine resources (worker threads) and closes its files; the segment must not be used afterwards. */
  dispose(): void {
    for (const store of this.vectors.values()) store.dispose();
    for (const file of this.files) file.close();
  }

  /** Live (not deleted) points. */
  get pointCount(): number {
    return this.live;
  }

  get deletedCount(): number {
    return this.ids.length - this.live;
  }

  /** Bytes of payload held by live points (their JSON size). */
  get payloadBytes(): number {
    return this.livePayloadBytes;
  }

  /** Live slot of a point, if it is here. */
  slotOf(id: PointId): number | undefined {
    const slot = this.slotByKey.get(pointIdKey(id));
    return slot === undefined || this.isDeleted(slot) ? undefined : slot;
  }

  isDeleted(slot: number): boolean {
    return (this.deleted[slot >> 3] & (1 << (slot & 7))) !== 0;
  }

  pointId(slot: number): PointId {
    return this.ids[slot];
  }

  pointVersion(slot: number): number {
    return this.versions[slot];
  }

  payload(slot: number): JsonObject {
    return (this.diskPayloads ? this.diskPayloads.store.get(slot) : this.payloads[slot]) ?? {};
  }

  /** Whether payloads are read from the segment's file. */
  get payloadsOnDisk(): boolean {
    return this.diskPayloads !== undefined;
  }

  /** Whether any vector space keeps its original vectors in the segment's file. */
  get vectorsOnDisk(): boolean {
    return [...this.vectors.values()].some((store) => store.onDisk);
  }

  vectorStore(name: string): SegmentVectors | undefined {
    return this.vectors.get(name);
  }

  vectorNames(): string[] {
    return [...this.vectors.keys()];
  }

  /**
   * Removes a vector space's store and releases it: every point of this segment loses its vector of
   * that name at once (a vector name deleted from the collection). False when there was none.
   */
  dropVectorStore(name: string): boolean {
    const store = this.vectors.get(name);
    if (!store) return false;
    this.vectors.delete(name);
    store.dispose();
    return true;
  }

  /** Vectors of a point, optionally only some names. */
  pointVectors(slot: number, names?: readonly string[]): NamedVectors {
    const result: NamedVectors = {};
    for (const [name, store] of this.vectors) {
      if (names && !names.includes(name)) continue;
      const vector = store.get(slot);
      if (vector) setOwn(result, name, vector);
    }
    return result;
  }

  /** Adds a point, or replaces it entirely (vectors and payload) when it is already here. */
  upsert(opNum: number, id: PointId, vectors: NamedVectors, payload: JsonObject): number {
    this.assertAppendable();
    const existing = this.slotOf(id);
    const slot = existing ?? this.allocate(id);
    for (const [name, store] of this.vectors) {
      // Own properties only: a vector may be named like an Object.prototype member.
      const vector = Object.hasOwn(vectors, name) ? vectors[name] : undefined;
      if (vector) store.set(slot, vector);
      else store.remove(slot);
    }
    this.writePayload(slot, payload);
    this.touch(slot, opNum);
    return slot;
  }

  /**
   * Changes a live point in place: vectors are re-added only where they changed (a payload-only
   * update must not leave a dead vector behind in the engine index), the payload is replaced.
   */
  rewrite(opNum: number, slot: number, previous: NamedVectors, vectors: NamedVectors, payload: JsonObject): void {
    this.assertAppendable();
    for (const [name, store] of this.vectors) {
      const vector = Object.hasOwn(vectors, name) ? vectors[name] : undefined;
      const before = Object.hasOwn(previous, name) ? previous[name] : undefined;
      if (vector === before) continue;
      if (vector) store.set(slot, vector);
      else store.remove(slot);
    }
    this.writePayload(slot, payload);
    this.touch(slot, opNum);
  }

  /** Whether one live slot passes a filter (cheaper than a whole-segment predicate). */
  matches(slot: number, filter: Filter): boolean {
    return !this.isDeleted(slot) && matchesFilter(filter, this.view(slot), this.payloadIndexes.schemas());
  }

  delete(opNum: number, slot: number): void {
    if (this.isDeleted(slot)) return;
    this.deleted[slot >> 3] |= 1 << (slot & 7);
    this.live--;
    this.livePayloadBytes -= this.payloadSizes[slot] ?? 0;
    for (const store of this.vectors.values()) store.remove(slot);
    this.payloadIndexes.onDelete(slot);
    this.slotByKey.delete(pointIdKey(this.ids[slot]));
    this.version = Math.max(this.version, opNum);
  }

  setVectors(opNum: number, slot: number, vectors: NamedVectors): void {
    this.assertAppendable();
    for (const [name, vector] of Object.entries(vectors)) this.vectors.get(name)?.set(slot, vector);
    this.touch(slot, opNum);
  }

  deleteVectors(opNum: number, slot: number, names: readonly string[]): void {
    this.assertAppendable();
    for (const name of names) this.vectors.get(name)?.remove(slot);
    this.touch(slot, opNum);
  }

  replacePayload(opNum: number, slot: number, payload: JsonObject): void {
    this.assertAppendable();
    this.writePayload(slot, payload);
    this.touch(slot, opNum);
  }

  createFieldIndex(field: string, type: PayloadSchemaType, params?: PayloadIndexParams): void {
    this.payloadIndexes.create(field, type, params);
  }

  deleteFieldIndex(field: string): void {
    this.payloadIndexes.drop(field);
  }

  /**
   * A predicate for live slots passing `filter`, computed once into a bitmap. A filter the payload
   * indexes answer wholly is taken from them; otherwise indexed conditions narrow the candidates
   * and the evaluator checks them against their payloads.
   */
  filterPredicate(filter: Filter | undefined): SlotPredicate {
    if (!filter) return (slot) => slot < this.ids.length && !this.isDeleted(slot);
    const bitmap = new Uint8Array(Math.ceil(this.ids.length / 8));
    const schemas = this.payloadIndexes.schemas();
    const check = (slot: number) => {
      if (this.isDeleted(slot)) return;
      if (matchesFilter(filter, this.view(slot), schemas)) bitmap[slot >> 3] |= 1 << (slot & 7);
    };
    const exact = this.payloadIndexes.exactMatches(filter);
    if (exact) {
      // the indexes answer the whole filter: no payload needs reading
      for (const slot of exact) if (!this.isDeleted(slot)) bitmap[slot >> 3] |= 1 << (slot & 7);
      return (slot) => (bitmap[slot >> 3] & (1 << (slot & 7))) !== 0;
    }
    const candidates = this.payloadIndexes.candidates(filter, this.ids.length);
    if (candidates) for (const slot of candidates) check(slot);
    else if (this.diskPayloads) {
      // one sequential pass over the payload file instead of a read per point
      this.diskPayloads.store.scan((slot, payload) => {
        if (!this.isDeleted(slot) && matchesFilter(filter, this.viewWith(slot, payload ?? {}), schemas))
          bitmap[slot >> 3] |= 1 << (slot & 7);
      });
    } else for (let slot = 0; slot < this.ids.length; slot++) check(slot);
    return (slot) => (bitmap[slot >> 3] & (1 << (slot & 7))) !== 0;
  }

  /** Live slots passing `filter`, ascending. */
  matchingSlots(filter: Filter | undefined): number[] {
    const predicate = this.filterPredicate(filter);
    const slots: number[] = [];
    for (let slot = 0; slot < this.ids.length; slot++) if (predicate(slot)) slots.push(slot);
    return slots;
  }

  /** Estimated number of live points passing `filter` (from the payload indexes). */
  estimate(filter: Filter | undefined): { min: number; exp: number; max: number } {
    if (!filter) return { min: this.live, exp: this.live, max: this.live };
    const e = this.payloadIndexes.estimate(filter, this.ids.length);
    return { min: Math.min(e.min, this.live), exp: Math.min(e.exp, this.live), max: Math.min(e.max, this.live) };
  }

  search(
    name: string,
    query: Vector,
    k: number,
    allowed: SlotPredicate | undefined,
    params: SearchParams | undefined,
  ): SlotHits {
    const store = this.vectors.get(name);
    if (!store || k <= 0) return { slots: new Uint32Array(0), scores: new Float32Array(0) };
    return store.search(query, k, allowed, params);
  }

  view(slot: number): PointView {
    if (!this.diskPayloads) return this.viewWith(slot, this.payloads[slot] ?? {});
    // read from the file only if a condition looks at the payload, and then once
    let payload: JsonObject | undefined;
    const segment = this;
    return {
      id: this.ids[slot],
      get payload() {
        payload ??= segment.payload(slot);
        return payload;
      },
      hasVector: (name: string) => this.vectors.get(name)?.has(slot) ?? false,
    };
  }

  private viewWith(slot: number, payload: JsonObject): PointView {
    return { id: this.ids[slot], payload, hasVector: (name: string) => this.vectors.get(name)?.has(slot) ?? false };
  }

  /** Serialises the whole segment; {@link Segment.load} restores it. */
  save(): Uint8Array {
    return serialize(this.snapshot([...this.vectors].map(([name, store]) => ({ name, bytes: store.save() }))));
  }

  private snapshot(vectors: SegmentSnapshot['vectors'], payloadFile = this.diskPayloads?.layout): SegmentSnapshot {
    const common = {
      id: this.id,
      profile: this.profile,
      appendable: this.appendable,
      version: this.version,
      ids: this.ids,
      versions: this.versions,
      deleted: this.deleted.subarray(0, Math.ceil(this.ids.length / 8)),
      vectors,
      payloadIndexes: this.payloadIndexes.toBytes(),
    };
    if (!payloadFile) return { ...common, payloads: this.payloads };
    const sizes = new Uint32Array(this.ids.length);
    for (let slot = 0; slot < sizes.length; slot++) sizes[slot] = this.payloadSizes[slot] ?? 0;
    return { ...common, payloadFile: { ...payloadFile, sizes } };
  }

  /**
   * Saves a freshly built immutable segment with the parts `layout` names moved to files of its own
   * in `dir` (`<id>.vec`, `<id>.pay`, written and fsynced here); returns the body bytes, which
   * {@link Segment.load} opens those files from. The segment itself must not be used afterwards.
   */
  async saveToDisk(dir: string, layout: SegmentDiskLayout): Promise<Uint8Array> {
    if (this.appendable) throw new Error(`segment ${this.id}: only immutable segments keep data on disk`);
    const vectorFile = `${this.id}.vec`;
    const rows: Array<() => Uint8Array> = [];
    let offset = 0;
    const vectors = [...this.vectors].map(([name, store]) => {
      if (!layout.vectors.has(name) || !(store instanceof DenseSegmentVectors)) return { name, bytes: store.save() };
      const external = store.saveExternal(vectorFile, offset);
      rows.push(external.rows);
      offset += external.rowsBytes;
      return { name, bytes: external.bytes };
    });
    // one space's rows at a time: exported, written, let go
    if (rows.length > 0)
      await writeFileAtomic(
        path.join(dir, vectorFile),
        (function* () {
          for (const next of rows) yield next();
        })(),
      );
    let payloadFile: PayloadFileLayout | undefined;
    if (layout.payloads) {
      const { body, offsets } = DiskPayloads.encode(this.payloads, this.ids.length);
      payloadFile = { file: `${this.id}.pay`, offsets };
      await writeFileAtomic(path.join(dir, payloadFile.file), body);
    }
    this.profile = segmentProfile(
      [...this.vectors.values()].map((store) => store.space),
      layout,
    );
    return serialize(this.snapshot(vectors, payloadFile));
  }

  /** Restores a saved segment; files it keeps data in are opened from `dir`. */
  static load(bytes: Uint8Array, spaces: Map<string, VectorSpace>, dir?: string): Segment {
    const s = deserialize(bytes) as SegmentSnapshot;
    const files = new Map<string, SegmentFile>();
    const openFile = (name: string): SegmentFile => {
      if (dir === undefined)
        throw new Error(`segment ${s.id} keeps data in ${name}, but no folder was given to open it from`);
      let file = files.get(name);
      if (!file) files.set(name, (file = SegmentFile.open(path.join(dir, name))));
      return file;
    };
    try {
      const segment = Segment.restore(s, spaces, openFile);
      segment.files = [...files.values()];
      return segment;
    } catch (error) {
      for (const file of files.values()) file.close();
      throw error;
    }
  }

  private static restore(
    s: SegmentSnapshot,
    spaces: Map<string, VectorSpace>,
    openFile: (name: string) => SegmentFile,
  ): Segment {
    let segment: Segment | undefined;
    const payloadIndexes = PayloadIndexSet.fromBytes(s.payloadIndexes, (visit) => segment!.forEachLivePayload(visit));
    segment = new Segment(s.id, s.appendable, payloadIndexes);
    segment.version = s.version;
    segment.profile = s.profile;
    segment.ids = s.ids;
    segment.versions = s.versions;
    if (s.payloadFile) {
      const { sizes, ...layout } = s.payloadFile;
      segment.diskPayloads = { store: new DiskPayloads(openFile(layout.file), layout.offsets), layout };
      segment.payloadSizes = Array.from(sizes);
    } else {
      segment.payloads = s.payloads ?? [];
    }
    segment.deleted = new Uint8Array(Math.max(64, s.deleted.length * 2));
    segment.deleted.set(s.deleted);
    for (let slot = 0; slot < s.ids.length; slot++) {
      if (!segment.isDeleted(slot)) {
        segment.live++;
        segment.slotByKey.set(pointIdKey(s.ids[slot]), slot);
        if (s.payloadFile) segment.livePayloadBytes += segment.payloadSizes[slot];
        else segment.setPayloadSize(slot, segment.payloads[slot]);
      }
    }
    const saved = new Map(s.vectors.map((v) => [v.name, v.bytes]));
    for (const [name, space] of spaces) {
      const bytesOf = saved.get(name);
      // A vector space added since the segment was written starts empty.
      segment.vectors.set(
        name,
        bytesOf ? loadSegmentVectors(space, bytesOf, openFile) : createSegmentVectors(space, !s.appendable),
      );
    }
    return segment;
  }

  forEachLivePayload(visit: (slot: number, payload: JsonObject) => void): void {
    if (this.diskPayloads) {
      this.diskPayloads.store.scan((slot, payload) => {
        if (!this.isDeleted(slot)) visit(slot, payload ?? {});
      });
      return;
    }
    for (let slot = 0; slot < this.ids.length; slot++) {
      if (!this.isDeleted(slot)) visit(slot, this.payloads[slot] ?? {});
    }
  }

  private allocate(id: PointId): number {
    const slot = this.ids.length;
    this.ids.push(id);
    this.versions.push(0);
    this.payloads.push(undefined);
    if (slot >> 3 >= this.deleted.length) {
      const grown = new Uint8Array(this.deleted.length * 2);
      grown.set(this.deleted);
      this.deleted = grown;
    }
    this.slotByKey.set(pointIdKey(id), slot);
    this.live++;
    return slot;
  }

  private writePayload(slot: number, payload: JsonObject): void {
    this.payloads[slot] = Object.keys(payload).length === 0 ? undefined : payload;
    this.setPayloadSize(slot, this.payloads[slot]);
    this.payloadIndexes.onDelete(slot);
    this.payloadIndexes.onUpsert(slot, payload);
  }

  private setPayloadSize(slot: number, payload: JsonObject | undefined): void {
    const size = payload === undefined ? 0 : Buffer.byteLength(stringifyJson(payload));
    this.livePayloadBytes += size - (this.payloadSizes[slot] ?? 0);
    this.payloadSizes[slot] = size;
  }

  private touch(slot: number, opNum: number): void {
    this.versions[slot] = opNum;
    this.version = Math.max(this.version, opNum);
  }

  private assertAppendable(): void {
    if (!this.appendable) throw new Error(`segment ${this.id} is immutable`);
  }
}

/** Dimensions of the dense spaces (the ones packed per space in columns). */
export function denseDimsOf(spaces: ReadonlyMap<string, VectorSpace>): Map<string, number> {
  const dims = new Map<string, number>();
  for (const [name, space] of spaces) if (space.kind === 'dense') dims.set(name, space.dim);
  return dims;
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
