import { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { JsonObject, setOwn } from '@vectorstore/common';
import { randomUUID } from 'node:crypto';
import { PointView } from '../../filter/filter-evaluator';
import { Filter } from '../../model/filter.model';
import { PointId } from '../../model/point-id.model';
import { SearchParams } from '../../model/query.model';
import { NamedVectors, Vector } from '../../model/vectors.model';
import { PayloadIndexSet } from '../../payload-index/payload-index-set';
import { columnsOf, denseDimsOf, SegmentColumns } from '../segment-columns';
import { FileChecksum } from '../file-checksum';
import { SegmentFile } from '../segment-file';
import { SegmentDiskLayout } from '../segment-layout';
import { VectorSpace } from '../vector-space';
import { SegmentVectors, SlotHits } from '../vectors/segment-vectors';
import { IdTracker } from './id-tracker';
import { PayloadSizes } from './payload-sizes';
import { MemoryPayloads } from './payload-store';
import { loadSegment, saveSegment, saveSegmentToDisk, SegmentHeader } from './segment-body';
import { SegmentParts } from './segment-parts';
import {
  estimateMatches,
  filterPredicate,
  forEachLivePayload,
  matchingSlots,
  pointView,
  SlotPredicate,
  bitmapPredicate,
  slotMatches,
} from './segment-filter';
import { searchVectors } from './segment-search';
import { VectorStores } from './vector-stores';

/** A point as the optimizer copies it between segments. */
export interface SegmentPoint {
  id: PointId;
  version: number;
  payload: JsonObject;
  vectors: NamedVectors;
}

type FieldIndexes = ReadonlyArray<{ field: string; type: PayloadSchemaType; params?: PayloadIndexParams }>;

/**
 * A set of points with their payloads and vectors. Appendable segments take new points; indexed
 * (immutable) ones only take deletes, so changing one of their points moves it to an appendable
 * segment (copy-on-write). Slots are dense internal ids; deleted slots stay until the optimizer
 * rebuilds the segment.
 *
 * The segment composes its parts (id tracker, payload store, vector stores, payload indexes) and
 * keeps their writes consistent; reads that choose points are in segment-query, the body format in
 * segment-body.
 */
export class Segment {
  readonly id: string;
  readonly appendable: boolean;
  /** What an optimizer-built segment was built with ({@link segmentProfile}); absent for appendable ones. */
  profile: string | undefined;
  /**
   * Size and checksum of the vector and payload files this segment was built with (empty for a segment kept in
   * memory, or loaded from a body written before checksums): the shard's manifest records them.
   */
  readonly sideFiles: readonly FileChecksum[];
  private currentVersion: number;
  /**
   * `prevent_unoptimized` (Qdrant's deferred points): slots from here on are written and kept but not
   * read (searches, scrolls, retrieves, counts) until the optimizer has indexed them into another segment.
   * Set on appendable segments only; Infinity hides nothing.
   */
  private deferredFrom = Number.POSITIVE_INFINITY;
  /** Slots past the cutoff that stay visible: points that were visible elsewhere and were moved here by a write. */
  private readonly shownPastCutoff = new Set<number>();
  /** Slots before the cutoff that stay hidden: deferred points copied here from a renewed segment. */
  private readonly hiddenBeforeCutoff = new Set<number>();

  private constructor(
    header: SegmentHeader,
    private readonly parts: SegmentParts,
    /** Files the segment reads vectors or payloads from (immutable segments kept on disk). */
    private readonly files: readonly SegmentFile[] = [],
  ) {
    this.id = header.id;
    this.appendable = header.appendable;
    this.currentVersion = header.version;
    this.profile = header.profile;
    this.sideFiles = header.sideFiles ?? [];
  }

  /** An empty segment with a vector store per space. */
  static create(
    spaces: Map<string, VectorSpace>,
    options: { appendable: boolean; indexed: boolean; id?: string },
  ): Segment {
    const header = { id: options.id ?? randomUUID(), appendable: options.appendable, version: 0, profile: undefined };
    return new Segment(header, emptyParts(VectorStores.create(spaces, options.indexed)));
  }

  /**
   * An immutable, indexed segment holding `points` (tests and small builds; the optimizer hands
   * columns to {@link Segment.buildFromColumns}). Vectors go into graph indexes and payload indexes
   * are built for `fieldIndexes`.
   */
  static build(
    spaces: Map<string, VectorSpace>,
    points: readonly SegmentPoint[],
    fieldIndexes: FieldIndexes,
    id: string = randomUUID(),
  ): Segment {
    return Segment.buildFromColumns(spaces, columnsOf(points, denseDimsOf(spaces)), fieldIndexes, id);
  }

  /** An immutable, indexed segment from the columns of an optimization's input. */
  static buildFromColumns(
    spaces: Map<string, VectorSpace>,
    columns: SegmentColumns,
    fieldIndexes: FieldIndexes,
    id: string = randomUUID(),
  ): Segment {
    const segment = new Segment(
      { id, appendable: false, version: 0, profile: undefined },
      emptyParts(VectorStores.create(spaces, true)),
    );
    const { payloads, payloadSizes } = segment.parts;
    for (let i = 0; i < columns.ids.length; i++) {
      const slot = segment.allocate(columns.ids[i]);
      payloads.set(slot, columns.payloads[i]);
      payloadSizes.set(slot, columns.payloads[i]);
      segment.touch(slot, columns.versions[i]);
    }
    segment.parts.vectors.addColumns(columns);
    for (const index of fieldIndexes) segment.createFieldIndex(index.field, index.type, index.params);
    return segment;
  }

  /** Restores a saved segment; files it keeps data in are opened from `dir`. */
  static load(bytes: Uint8Array, spaces: Map<string, VectorSpace>, dir?: string): Segment {
    const { header, parts, files, unconfiguredVectors } = loadSegment(bytes, spaces, dir);
    const segment = new Segment(header, parts, files);
    segment.holdsUnconfiguredVectors = unconfiguredVectors.length > 0;
    return segment;
  }

  /**
   * Its saved files hold vectors of names not in the spaces it was loaded with (a vector name deleted in cluster
   * mode before this peer wrote the segment again): they must be written again without them.
   */
  holdsUnconfiguredVectors = false;

  /** Serialises the whole segment; {@link Segment.load} restores it. */
  save(): Uint8Array {
    return saveSegment(this.header(), this.parts);
  }

  /**
   * Saves a freshly built immutable segment with the parts `layout` names moved to files of its own
   * in `dir` (`<id>.vec`, `<id>.pay`, written and fsynced here); returns the body bytes, which
   * {@link Segment.load} opens those files from. The segment itself must not be used afterwards.
   */
  async saveToDisk(dir: string, layout: SegmentDiskLayout): Promise<Uint8Array> {
    const { bytes, profile } = await saveSegmentToDisk(this.header(), this.parts, dir, layout);
    this.profile = profile;
    return bytes;
  }

  /** Releases engine resources (worker threads) and closes its files; the segment must not be used afterwards. */
  dispose(): void {
    this.parts.vectors.dispose();
    for (const file of this.files) file.close();
  }

  // ---- reads ----

  /** Largest op number applied to this segment. */
  get version(): number {
    return this.currentVersion;
  }

  /** Slots ever allocated, deleted ones included. */
  get size(): number {
    return this.parts.ids.size;
  }

  /** Live (not deleted) points. */
  get pointCount(): number {
    return this.parts.ids.liveCount;
  }

  get deletedCount(): number {
    return this.parts.ids.size - this.parts.ids.liveCount;
  }

  /** Bytes of payload held by live points (their JSON size). */
  get payloadBytes(): number {
    return this.parts.payloadSizes.total;
  }

  /** Whether payloads are read from the segment's file. */
  get payloadsOnDisk(): boolean {
    return this.parts.payloads.onDisk;
  }

  /** Whether any vector space keeps its original vectors in the segment's file. */
  get vectorsOnDisk(): boolean {
    return this.parts.vectors.onDisk;
  }

  get payloadIndexes(): PayloadIndexSet {
    return this.parts.payloadIndexes;
  }

  /** Kilobytes of dense vector data (1 KB = one 256-dim float32 vector), as thresholds count them. */
  vectorDataKb(): number {
    return this.parts.vectors.dataKb();
  }

  /** Live slot of a point, if it is here (deferred or not: what writes act on). */
  slotOf(id: PointId): number | undefined {
    return this.parts.ids.slotOf(id);
  }

  /** Live slot of a point that reads may see (not deferred). */
  visibleSlotOf(id: PointId): number | undefined {
    const slot = this.parts.ids.slotOf(id);
    return slot !== undefined && this.isVisible(slot) ? slot : undefined;
  }

  /** Whether reads may see a slot: not deferred by `prevent_unoptimized` (deleted slots are checked apart). */
  isVisible(slot: number): boolean {
    return slot < this.deferredFrom ? !this.hiddenBeforeCutoff.has(slot) : this.shownPastCutoff.has(slot);
  }

  /**
   * Hides the points written from slot `slot` on until they are optimized (appendable segments only);
   * undefined hides nothing (the collection turned `prevent_unoptimized` off).
   */
  deferPointsFrom(slot: number | undefined): void {
    if (this.appendable) this.deferredFrom = slot ?? Number.POSITIVE_INFINITY;
  }

  /** Whether any live slot may be hidden from reads (a cutoff inside the segment, or copied deferred points). */
  private get hidesAny(): boolean {
    return this.deferredFrom < this.parts.ids.size || this.hiddenBeforeCutoff.size > 0;
  }

  /** Keeps a slot visible past the cutoff: a write moved a point here that reads could already see. */
  keepVisible(slot: number): void {
    if (slot >= this.deferredFrom) this.shownPastCutoff.add(slot);
  }

  /** Keeps a slot hidden before the cutoff: a deferred point copied here must stay deferred. */
  keepHidden(slot: number): void {
    if (slot < this.deferredFrom) this.hiddenBeforeCutoff.add(slot);
  }

  /** Live points that reads do not see yet (Qdrant's `num_deferred_points`). */
  get deferredCount(): number {
    let count = 0;
    for (let slot = this.deferredFrom; slot < this.parts.ids.size; slot++) {
      if (!this.isDeleted(slot) && !this.shownPastCutoff.has(slot)) count++;
    }
    for (const slot of this.hiddenBeforeCutoff) if (!this.isDeleted(slot)) count++;
    return count;
  }

  isDeleted(slot: number): boolean {
    return this.parts.ids.isDeleted(slot);
  }

  pointId(slot: number): PointId {
    return this.parts.ids.pointId(slot);
  }

  pointVersion(slot: number): number {
    return this.parts.ids.pointVersion(slot);
  }

  payload(slot: number): JsonObject {
    return this.parts.payloads.get(slot) ?? {};
  }

  vectorStore(name: string): SegmentVectors | undefined {
    return this.parts.vectors.get(name);
  }

  vectorNames(): string[] {
    return this.parts.vectors.names();
  }

  /** Vectors of a point, optionally only some names. */
  pointVectors(slot: number, names?: readonly string[]): NamedVectors {
    return this.parts.vectors.pointVectors(slot, names);
  }

  forEachLivePayload(visit: (slot: number, payload: JsonObject) => void): void {
    forEachLivePayload(this.parts, visit);
  }

  /** Live points with everything stored about them (input of an optimization). */
  livePoints(): SegmentPoint[] {
    const bySlot = new Map<number, SegmentPoint>();
    this.forEachLivePayload((slot, payload) => {
      bySlot.set(slot, { id: this.pointId(slot), version: this.pointVersion(slot), payload, vectors: {} });
    });
    this.parts.vectors.forEachVector((name, slot, vector) => {
      const point = bySlot.get(slot);
      if (point) setOwn(point.vectors, name, vector);
    });
    return [...bySlot.values()];
  }

  view(slot: number): PointView {
    return pointView(this.parts, slot);
  }

  /** Whether one live slot passes a filter (cheaper than a whole-segment predicate). */
  matches(slot: number, filter: Filter): boolean {
    return slotMatches(this.parts, slot, filter);
  }

  /** A predicate for live, visible (not deferred) slots passing `filter`, computed once. */
  filterPredicate(filter: Filter | undefined): SlotPredicate {
    return this.visibleOnly(filterPredicate(this.parts, filter));
  }

  /**
   * Live slots passing `filter`, ascending: those reads see, or with `'stored'` every one (what writes
   * by filter act on, deferred points included).
   */
  matchingSlots(filter: Filter | undefined, scope: 'visible' | 'stored' = 'visible'): number[] {
    const slots = matchingSlots(this.parts, filter);
    return scope === 'stored' || !this.hidesAny ? slots : slots.filter((slot) => this.isVisible(slot));
  }

  /** Estimated number of live points passing `filter` (from the payload indexes). */
  estimate(filter: Filter | undefined): { min: number; exp: number; max: number } {
    return estimateMatches(this.parts, filter);
  }

  /** `allowed`: a predicate from {@link filterPredicate} (it hides deferred points); absent, every visible slot. */
  search(
    name: string,
    query: Vector,
    k: number,
    allowed: SlotPredicate | undefined,
    params: SearchParams | undefined,
  ): SlotHits {
    // `allowed` comes from filterPredicate, which already hides deferred points; without one, hide them here.
    const visible = allowed ?? (this.hidesAny ? this.filterPredicate(undefined) : undefined);
    return searchVectors(this.parts, name, query, k, visible, params);
  }

  /**
   * `search` on an engine worker thread where the store can and wants to (see SegmentVectors.searchAsync),
   * else undefined; the filter becomes a predicate only then. Its hits may include slots deleted while it
   * ran: check them against the segment when it settles.
   */
  searchAsync(
    name: string,
    query: Vector,
    k: number,
    filter: Filter | undefined,
    params: SearchParams | undefined,
  ): Promise<SlotHits> | undefined {
    const store = this.parts.vectors.get(name);
    if (!store?.searchAsync || k <= 0) return undefined;
    // as search(): the predicate hides deferred points too
    const allowed = filter !== undefined || this.hidesAny ? () => this.filterPredicate(filter) : undefined;
    return store.searchAsync(query, k, allowed, params);
  }

  private visibleOnly(predicate: SlotPredicate): SlotPredicate {
    if (!this.hidesAny) return predicate;
    const cutoff = this.deferredFrom;
    const size = this.parts.ids.size;
    if (predicate.bitmap === undefined) return (slot) => this.isVisible(slot) && predicate(slot);
    // Keep a bitmap for the engine: the same bits with the deferred slots cleared.
    const bitmap = predicate.bitmap.slice();
    for (let slot = cutoff; slot < size; slot++) {
      if (!this.shownPastCutoff.has(slot)) bitmap[slot >> 3] &= ~(1 << (slot & 7));
    }
    for (const slot of this.hiddenBeforeCutoff) bitmap[slot >> 3] &= ~(1 << (slot & 7));
    return bitmapPredicate(bitmap);
  }

  // ---- writes ----

  /** Raises the segment's version to `version` if it is below (deletes loaded from a delete file). */
  raiseVersion(version: number): void {
    this.currentVersion = Math.max(this.currentVersion, version);
  }

  /** Adds a point, or replaces it entirely (vectors and payload) when it is already here. */
  upsert(opNum: number, id: PointId, vectors: NamedVectors, payload: JsonObject): number {
    this.assertAppendable();
    const existing = this.slotOf(id);
    const slot = existing ?? this.allocate(id);
    this.parts.vectors.replace(slot, vectors);
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
    this.parts.vectors.rewrite(slot, previous, vectors);
    this.writePayload(slot, payload);
    this.touch(slot, opNum);
  }

  delete(opNum: number, slot: number): void {
    if (!this.parts.ids.delete(slot)) return;
    this.parts.payloadSizes.release(slot);
    this.parts.vectors.removeAll(slot);
    this.parts.payloadIndexes.onDelete(slot);
    this.raiseVersion(opNum);
  }

  setVectors(opNum: number, slot: number, vectors: NamedVectors): void {
    this.assertAppendable();
    this.parts.vectors.update(slot, vectors);
    this.touch(slot, opNum);
  }

  deleteVectors(opNum: number, slot: number, names: readonly string[]): void {
    this.assertAppendable();
    this.parts.vectors.remove(slot, names);
    this.touch(slot, opNum);
  }

  replacePayload(opNum: number, slot: number, payload: JsonObject): void {
    this.assertAppendable();
    this.writePayload(slot, payload);
    this.touch(slot, opNum);
  }

  /**
   * Removes a vector space's store and releases it: every point of this segment loses its vector of
   * that name at once (a vector name deleted from the collection). False when there was none.
   */
  dropVectorStore(name: string): boolean {
    return this.parts.vectors.drop(name);
  }

  createFieldIndex(field: string, type: PayloadSchemaType, params?: PayloadIndexParams): void {
    this.parts.payloadIndexes.create(field, type, params);
  }

  deleteFieldIndex(field: string): void {
    this.parts.payloadIndexes.drop(field);
  }

  private header(): SegmentHeader {
    return {
      id: this.id,
      appendable: this.appendable,
      version: this.currentVersion,
      profile: this.profile,
      sideFiles: this.sideFiles,
    };
  }

  private allocate(id: PointId): number {
    const slot = this.parts.ids.allocate(id);
    this.parts.payloads.append();
    return slot;
  }

  private writePayload(slot: number, payload: JsonObject): void {
    const stored = Object.keys(payload).length === 0 ? undefined : payload;
    this.parts.payloads.set(slot, stored);
    this.parts.payloadSizes.set(slot, stored);
    this.parts.payloadIndexes.onDelete(slot);
    this.parts.payloadIndexes.onUpsert(slot, payload);
  }

  private touch(slot: number, opNum: number): void {
    this.parts.ids.setVersion(slot, opNum);
    this.raiseVersion(opNum);
  }

  private assertAppendable(): void {
    if (!this.appendable) throw new Error(`segment ${this.id} is immutable`);
  }
}

/** Parts of a segment with no points yet: payloads in memory, payload indexes over them. */
function emptyParts(vectors: VectorStores): SegmentParts {
  const ids = IdTracker.empty();
  const payloads = new MemoryPayloads();
  const payloadIndexes = new PayloadIndexSet((visit) => forEachLivePayload({ ids, payloads }, visit));
  return { ids, payloads, payloadSizes: new PayloadSizes(), vectors, payloadIndexes };
}
