import { AllowedSlots, higherIsBetter, VectorIndex } from '@vectorstore/engine';
import { DamagedFileError } from '@vectorstore/common';
import { serialize } from 'node:v8';
import { SearchParams } from '../../model/query.model';
import { Vector } from '../../model/vectors.model';
import { SegmentFile } from '../segment-file';
import { VectorSpace } from '../vector-space';
import { DiskVectorsLayout, SavedDenseVectors } from './saved-dense-vectors';
import { SegmentVectors, SlotHits, wrongKind } from './segment-vectors';
import { SlotMap } from './slot-map';

/**
 * Candidates fetched per wanted hit when the graph is walked on internal int8 codes; they are then
 * rescored on the original vectors read from the file.
 */
export const INTERNAL_OVERSAMPLING = 3;
/** Rows scored per batch in an exact scan of the file, and at most this many bytes of them. */
const SCAN_ROWS = 4096;
const SCAN_BYTES = 4 << 20;

type DenseSpace = Extract<VectorSpace, { kind: 'dense' | 'multi' }>;

/**
 * Dense vectors of an immutable segment whose originals stay in a file (`on_disk`, `memmap_threshold`).
 * Memory holds the HNSW graph and quantized codes only: a search walks the graph on the codes, then
 * reads the candidates' rows from the file and rescores them exactly; `exact` searches stream the file.
 */
export class DiskDenseSegmentVectors implements SegmentVectors {
  readonly indexed = true;
  readonly onDisk = true;
  private readonly higherIsBetter: boolean;
  /** KB; read at search time so that a changed collection setting applies to built segments too. */
  private fullScanThreshold: number;

  constructor(
    readonly space: DenseSpace,
    private readonly index: VectorIndex,
    private readonly slots: SlotMap,
    private readonly file: SegmentFile,
    private readonly layout: DiskVectorsLayout,
  ) {
    this.higherIsBetter = higherIsBetter(space.distance);
    this.fullScanThreshold = space.hnsw.fullScanThreshold;
    const needed = layout.offset + index.size * layout.rowBytes;
    // a truncated file fails the segment's load (Red), not single queries later
    if (file.byteLength < needed)
      throw new DamagedFileError(
        file.path,
        `${file.byteLength} bytes, but the vectors of \`${space.name}\` need ${needed} (truncated)`,
      );
  }

  useFullScanThreshold(kb: number): void {
    this.fullScanThreshold = kb;
  }

  get count(): number {
    return this.slots.live;
  }

  set(): void {
    throw new Error('vectors of an immutable segment cannot be changed');
  }

  remove(pointSlot: number): void {
    const engineSlot = this.slots.unlink(pointSlot);
    if (engineSlot >= 0) this.index.delete(engineSlot);
  }

  has(pointSlot: number): boolean {
    return this.slots.engineSlot(pointSlot) >= 0;
  }

  get(pointSlot: number): Vector | undefined {
    const engineSlot = this.slots.engineSlot(pointSlot);
    if (engineSlot < 0) return undefined;
    const row = this.file.read(this.layout.offset + engineSlot * this.layout.rowBytes, this.layout.rowBytes);
    return { kind: 'dense', values: this.index.decodeRow(engineSlot, row) };
  }

  forEach(visit: (pointSlot: number, vector: Vector) => void): void {
    this.forEachLive(undefined, (engineSlots, rows) => {
      const { rowBytes } = this.layout;
      engineSlots.forEach((engineSlot, i) => {
        const values = this.index.decodeRow(engineSlot, rows.subarray(i * rowBytes, (i + 1) * rowBytes));
        visit(this.slots.pointSlot(engineSlot), { kind: 'dense', values });
      });
    });
  }

  search(
    query: Vector,
    k: number,
    allowed: ((pointSlot: number) => boolean) | undefined,
    params: SearchParams | undefined,
  ): SlotHits {
    if (query.kind !== 'dense') throw wrongKind(this.space, query);
    const live = this.slots.live;
    if (live === 0) return { slots: new Uint32Array(0), scores: new Float32Array(0) };
    const wanted = Math.min(k, live);
    // Small filtered sets are scanned exactly on the originals, as the in-memory index does below
    // full_scan_threshold (not on the codes, which would make them approximate).
    if (params?.exact || (allowed && this.fewAllowed(allowed))) return this.scan(query.values, wanted, allowed);
    const quantization = params?.quantization;
    const oversampling = quantization?.oversampling ?? (this.layout.internalQuantization ? INTERNAL_OVERSAMPLING : 1);
    const fetch = quantization?.rescore === false ? wanted : Math.ceil(wanted * oversampling);
    const candidates = this.index.searchCandidates(query.values, {
      k: fetch,
      ef: params?.hnswEf,
      allowed: this.slots.engineFilter(allowed) as AllowedSlots | undefined,
      // the originals are not in memory, so the codes are walked even when asked to ignore them
      quantization: { ...quantization, ignore: false },
      fullScanThreshold: this.fullScanThreshold,
    });
    // Candidates are always rescored on the originals, as in-memory indexes do, so scores are exact.
    const scores = this.scoreEngineSlots(query.values, candidates.slots);
    return this.best(candidates.slots, scores, wanted);
  }

  score(query: Vector, pointSlots: ArrayLike<number>): SlotHits {
    if (query.kind !== 'dense') throw wrongKind(this.space, query);
    const { kept, engineSlots } = this.slots.withVectors(pointSlots);
    return { slots: Uint32Array.from(kept), scores: this.scoreEngineSlots(query.values, engineSlots) };
  }

  save(): Uint8Array {
    const state: SavedDenseVectors = {
      slots: this.slots.toJSON(),
      index: this.index.save({ vectors: false }),
      indexed: true,
      disk: this.layout,
    };
    return serialize(state);
  }

  dispose(): void {
    void this.index.dispose();
  }

  /** Whether fewer points pass `allowed` than full_scan_threshold (KB of vectors) covers. */
  private fewAllowed(allowed: (pointSlot: number) => boolean): boolean {
    const limit = (this.fullScanThreshold * 1024) / (this.space.dim * 4);
    let count = 0;
    const total = this.index.size;
    for (let engineSlot = 0; engineSlot < total; engineSlot++) {
      const pointSlot = this.slots.pointSlot(engineSlot);
      if (pointSlot >= 0 && allowed(pointSlot) && ++count >= limit) return false;
    }
    return true;
  }

  /** Exact scores of live engine slots, their rows read from the file. */
  private scoreEngineSlots(query: Float32Array, engineSlots: ArrayLike<number>): Float32Array {
    if (engineSlots.length === 0) return new Float32Array(0);
    const rows = this.file.readRows(this.layout.offset, this.layout.rowBytes, engineSlots);
    return this.index.scoreRows(query, engineSlots, rows);
  }

  /** Exact k best over the whole file (or the allowed points), read in large sequential batches. */
  private scan(query: Float32Array, k: number, allowed: ((pointSlot: number) => boolean) | undefined): SlotHits {
    const hitSlots: number[] = [];
    const hitScores: number[] = [];
    this.forEachLive(allowed, (engineSlots, rows) => {
      const scores = this.index.scoreRows(query, engineSlots, rows);
      for (let i = 0; i < engineSlots.length; i++) {
        hitSlots.push(engineSlots[i]);
        hitScores.push(scores[i]);
      }
      if (hitSlots.length > 4 * k + SCAN_ROWS) this.prune(hitSlots, hitScores, k);
    });
    return this.best(hitSlots, Float32Array.from(hitScores), k);
  }

  /** Live (and allowed) engine slots in file order, in batches of SCAN_ROWS with their rows. */
  private forEachLive(
    allowed: ((pointSlot: number) => boolean) | undefined,
    visit: (engineSlots: number[], rows: Uint8Array) => void,
  ): void {
    const batch: number[] = [];
    const batchRows = Math.max(1, Math.min(SCAN_ROWS, Math.floor(SCAN_BYTES / this.layout.rowBytes)));
    const flush = () => {
      visit(batch, this.file.readRows(this.layout.offset, this.layout.rowBytes, batch));
      batch.length = 0;
    };
    const total = this.index.size;
    for (let engineSlot = 0; engineSlot < total; engineSlot++) {
      const pointSlot = this.slots.pointSlot(engineSlot);
      if (pointSlot < 0 || (allowed && !allowed(pointSlot))) continue;
      batch.push(engineSlot);
      if (batch.length === batchRows) flush();
    }
    if (batch.length > 0) flush();
  }

  /** Keeps the k best of parallel arrays in place (order not kept). */
  private prune(slots: number[], scores: number[], k: number): void {
    const order = this.ranked(scores).slice(0, k);
    const keptSlots = order.map((i) => slots[i]);
    const keptScores = order.map((i) => scores[i]);
    slots.length = 0;
    scores.length = 0;
    slots.push(...keptSlots);
    scores.push(...keptScores);
  }

  private ranked(scores: ArrayLike<number>): number[] {
    const order = Array.from({ length: scores.length }, (_, i) => i);
    return order.sort((a, b) => (this.higherIsBetter ? scores[b] - scores[a] : scores[a] - scores[b]));
  }

  /** The k best engine slots as point-slot hits, best first. */
  private best(engineSlots: ArrayLike<number>, scores: ArrayLike<number>, k: number): SlotHits {
    const order = this.ranked(scores).slice(0, k);
    const slots = new Uint32Array(order.length);
    const out = new Float32Array(order.length);
    order.forEach((i, at) => {
      slots[at] = this.slots.pointSlot(engineSlots[i]);
      out[at] = scores[i];
    });
    return { slots, scores: out };
  }
}
